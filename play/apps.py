from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlayConfig(AppConfig):
    name = "play"
    verbose_name = _("La mesa")

    def ready(self) -> None:
        # The live streams' receivers (a logout, an account changed): connected in every process that can send them,
        # the admin's and a management command's too, not only in those that serve a stream.
        from play import live, sessions  # noqa: F401, PLC0415
