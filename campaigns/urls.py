from django.urls import path, register_converter

from campaigns import views
from campaigns.models import TOKEN_PATTERN


class TokenConverter:
    regex = TOKEN_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(TokenConverter, "token")

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/signup/", views.signup, name="signup"),
    path("campaigns/new/", views.campaign_create, name="campaign_create"),
    path("campaigns/import/", views.campaign_import, name="campaign_import"),
    path("campaigns/<int:campaign_id>/export/", views.campaign_export, name="campaign_export"),
    path("campaigns/<int:campaign_id>/delete/", views.campaign_delete, name="campaign_delete"),
    path("invite/<token:token>/", views.invitation, name="invitation"),
]
