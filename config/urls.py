from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from django.views.i18n import set_language

urlpatterns = [
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("", include("campaigns.urls")),
    path("", include("characters.urls")),
    path("", include("rules.urls")),
    path("", include("play.urls")),
    path("admin/", admin.site.urls),
]
