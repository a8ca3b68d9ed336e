from django.urls import path

from characters import views

CHARACTER = "campaigns/<int:campaign_id>/characters/<int:character_id>/"

urlpatterns = [
    path("campaigns/<int:campaign_id>/characters/new/", views.character_create, name="character_create"),
    path(CHARACTER + "edit/", views.character_edit, name="character_edit"),
    path(CHARACTER + "delete/", views.character_delete, name="character_delete"),
]
