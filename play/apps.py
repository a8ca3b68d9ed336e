from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlayConfig(AppConfig):
    name = "play"
    verbose_name = _("La mesa")

    def ready(self) -> None:
        # The live streams' receivers (a logout, an account changed): connected in every process that can send them,
        # the admin's and a management command's too, not only in those that serve a stream (play.live.logins).
        # The screens the live streams show, registered with them: the machinery knows no screen of its own.
        # The API's streams (play.api.stream) ride the same hub: one object draws for both.
        from play.api import stream  # noqa: PLC0415
        from play.live import logins, streams  # noqa: F401, PLC0415
        from play.screens import drawing, regions, streamed  # noqa: PLC0415

        drawing.register(regions.SCREENS)
        streams.register(stream.with_api(streamed.SCREENS))
