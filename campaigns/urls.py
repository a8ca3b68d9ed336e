from django.urls import path

from campaigns import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/signup/", views.signup, name="signup"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("invite/<str:token>/", views.invitation, name="invitation"),
    path(
        "campaigns/<int:campaign_id>/invitations/<int:invitation_id>/revoke/",
        views.invitation_revoke,
        name="invitation_revoke",
    ),
]
