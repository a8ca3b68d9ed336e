"""The GM's control of the party view: what every player sees of the other players' characters."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign, PartyView
from play.forms.base import ActionForm
from play.party import VIEW_WORDS
from rules import actions
from rules.actions import Actor


class PartyViewForm(ActionForm[Actor, actions.Outcome], forms.Form):
    """The GM's control: what every player sees of the other players' characters, for the whole campaign (a
    character's sheet may say otherwise)."""

    party_view = forms.ChoiceField(
        label=_("Los jugadores ven de los demás"), choices=[(view, VIEW_WORDS[view]) for view in PartyView.values]
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "%s")
        kwargs["initial"] = {"party_view": campaign.party_view}
        super().__init__(*args, **kwargs)
        self.campaign = campaign

    def perform(self, by: Actor) -> actions.Outcome:
        campaign = self.campaign
        view = self.cleaned_data["party_view"]
        return actions.edit_campaign(campaign, party_view=view, by=by)  # only that: a rename meanwhile stays
