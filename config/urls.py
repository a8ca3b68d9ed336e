from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import path
from django.views.i18n import set_language

from campaigns import disease_views
from campaigns import views as campaign_views
from characters import views as character_views
from rules import views as rules_views

urlpatterns = [
    path("", campaign_views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", campaign_views.signup, name="signup"),
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("campaigns/new/", campaign_views.campaign_create, name="campaign_create"),
    path("campaigns/<int:campaign_id>/", campaign_views.campaign_detail, name="campaign"),
    path("campaigns/<int:campaign_id>/stream/", campaign_views.campaign_stream, name="campaign_stream"),
    path("campaigns/<int:campaign_id>/characters/new/", character_views.character_create, name="character_create"),
    path("campaigns/<int:campaign_id>/characters/<int:character_id>/", character_views.character_sheet,
         name="character"),
    path("campaigns/<int:campaign_id>/characters/<int:character_id>/edit/", character_views.character_edit,
         name="character_edit"),
    path("campaigns/<int:campaign_id>/characters/<int:character_id>/delete/", character_views.character_delete,
         name="character_delete"),
    path("campaigns/<int:campaign_id>/characters/<int:character_id>/invite/", character_views.character_invite,
         name="character_invite"),
    path("campaigns/<int:campaign_id>/act/<slug:action>/", rules_views.act, name="act"),
    path("campaigns/<int:campaign_id>/undo/", rules_views.undo, name="undo"),
    path("campaigns/<int:campaign_id>/diseases/", disease_views.disease_list, name="diseases"),
    path("campaigns/<int:campaign_id>/diseases/new/", disease_views.disease_create, name="disease_create"),
    path("campaigns/<int:campaign_id>/diseases/<int:disease_id>/edit/", disease_views.disease_edit,
         name="disease_edit"),
    path("campaigns/<int:campaign_id>/diseases/<int:disease_id>/retire/", disease_views.disease_retire,
         name="disease_retire"),
    path("invite/<str:token>/", campaign_views.invitation, name="invitation"),
    path("admin/", admin.site.urls),
]
