"""django-axes under a name in the site's languages: its section of the admin reads "Accesos al sitio", not "Axes"."""

from axes.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class Axes(AppConfig):
    verbose_name = _("Accesos al sitio")
