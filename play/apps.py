from pathlib import Path

from django.apps import AppConfig
from django.utils.autoreload import file_changed
from django.utils.translation import gettext_lazy as _

from play.recent import forget_everything


class PlayConfig(AppConfig):
    name = "play"
    verbose_name = _("La mesa")

    def ready(self) -> None:
        file_changed.connect(template_changed, dispatch_uid="play_template_changed")


def template_changed(sender: object, file_path: Path, **kwargs: object) -> None:
    """In development an edited template or translation is read again without a restart (Python code restarts the
    server): what was drawn or worded with the old one is forgotten with it."""
    if file_path.suffix != ".py":
        forget_everything()
