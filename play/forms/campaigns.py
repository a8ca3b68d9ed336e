"""The forms of a whole campaign: naming a new one, importing an exported copy, deleting one by typing its name."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from campaigns.models import Campaign
from play.forms.base import ActionForm, PageForm
from rules import actions, backup
from rules.actions import Actor
from rules.actions.sheet import NAME_LENGTH


class CampaignNameForm(PageForm, ActionForm[User, Campaign], forms.ModelForm):
    """A new campaign's name; its GM is who sends it."""

    class Meta:
        model = Campaign
        fields = ["name"]

    def perform(self, by: User) -> Campaign:
        return actions.create_campaign(self.cleaned_data["name"], by)


class CampaignImportForm(PageForm, ActionForm[User, Campaign], forms.Form):
    """An exported campaign, restored as a new one of the user's own: named as typed, or as the copy names it with
    the day it came in, so that it is not mistaken for the campaign it was exported from."""

    file = forms.FileField(label=_("Copia de la campaña (.json)"))
    name = forms.CharField(label=_("Nombre de la campaña nueva"), required=False, max_length=NAME_LENGTH)

    # Whatever is wrong with the name is said beside it; anything else is about the file.
    action_fields = {"name": "name", "*": "file"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        example = imported_name("…", timezone.localdate())
        self.fields["name"].help_text = _("Si lo dejas vacío: %(example)s, con el nombre de la copia.") % {
            "example": example
        }

    def perform(self, by: User) -> Campaign:
        data = self.cleaned_data["file"].read(backup.DOCUMENT_BYTES + 1)
        document = backup.read_document(data)
        name = self.cleaned_data["name"].strip() or imported_name(document.campaign.name, timezone.localdate())
        return backup.import_campaign(document, by, name=name)


def imported_name(name: str, day: date) -> str:
    """An imported campaign's name when none is typed: «La Cripta de Hielo» (importada el 1 dic); the copy's name is
    cut short (…) where the whole would not fit."""
    named = IMPORTED
    name = _unimported(name)
    when = date_format(day, pgettext("the day an import is named after", "j b"))
    room = NAME_LENGTH - len(named % {"name": "", "date": when})
    if len(name) > room:
        name = name[: room - 1] + "…"
    return named % {"name": name, "date": when}


IMPORTED = _("«%(name)s» (importada el %(date)s)")


def _unimported(name: str) -> str:
    """A name without the quotes and day an import gave it, in any of the site's languages: a copy of an imported
    campaign comes in under the campaign's own name again, never nested («««La Cripta» (importada…)» (importada…)»)."""
    shapes = []
    for language, _label in settings.LANGUAGES:
        with translation.override(language):
            head, _mark, tail = str(IMPORTED).partition("%(name)s")
        middle, _mark, end = tail.partition("%(date)s")
        shapes.append(re.compile(re.escape(head) + "(.+)" + re.escape(middle) + "[^()]{1,40}" + re.escape(end), re.S))
    while found := next((match for shape in shapes if (match := shape.fullmatch(name))), None):
        name = found[1]
    return name


class CampaignDeleteForm(PageForm, ActionForm[Actor, Campaign], forms.Form):
    """The GM deletes the campaign after typing its name."""

    name = forms.CharField(
        label=_("Nombre de la campaña"),
        max_length=200,
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    # Whatever stops the deletion is said beside the name typed.
    action_fields = {"*": "name"}

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign

    def perform(self, by: Actor) -> Campaign:
        """The campaign deleted (its name is still there to say so)."""
        actions.delete_campaign(self.campaign, by=by, typed_name=self.cleaned_data["name"])
        return self.campaign
