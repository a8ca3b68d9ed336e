"""The forms of a whole campaign: naming a new one, importing an exported copy, deleting one by typing its name."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from play.forms.base import ActionForm, PageForm
from rules import actions, backup
from rules.actions import Actor


class CampaignNameForm(PageForm, ActionForm[User, Campaign], forms.ModelForm):
    """A new campaign's name; its GM is who sends it."""

    class Meta:
        model = Campaign
        fields = ["name"]

    def perform(self, by: User) -> Campaign:
        return actions.create_campaign(self.cleaned_data["name"], by)


class CampaignImportForm(PageForm, ActionForm[User, Campaign], forms.Form):
    """An exported campaign, restored as a new one of the user's own."""

    file = forms.FileField(label=_("Copia de la campaña (.json)"))

    # Whatever is wrong, it is about the file: every refusal is said beside it.
    action_fields = {"*": "file"}

    def perform(self, by: User) -> Campaign:
        data = self.cleaned_data["file"].read(backup.DOCUMENT_BYTES + 1)
        return backup.import_campaign(backup.read_document(data), by)


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
