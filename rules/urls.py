from django.urls import path

from rules import views

DISEASES = "campaigns/<int:campaign_id>/diseases/"

urlpatterns = [
    path("rules/", views.rules_page, name="rules"),
    path(DISEASES, views.disease_list, name="diseases"),
    path(DISEASES + "new/", views.disease_create, name="disease_create"),
    path(DISEASES + "<int:disease_id>/edit/", views.disease_edit, name="disease_edit"),
    path(DISEASES + "<int:disease_id>/retire/", views.disease_retire, name="disease_retire"),
]
