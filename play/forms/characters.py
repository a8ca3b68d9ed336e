"""A character's sheet as the GM keeps it, added or edited (rules.actions.add_character and edit_character)."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from characters.models import Character
from play.forms.base import ActionForm, PageForm
from play.forms.fields import RowChoiceField, WholeNumberField
from rules import actions
from rules.actions import Actor, Sheet


class CharacterForm(PageForm, ActionForm[Actor, actions.Outcome], forms.ModelForm):
    """A character's sheet. It only checks what a person can get wrong; rules.actions writes it: a new character, or
    `character`'s sheet edited."""

    action_fields = {"player_id": "player"}

    class Meta:
        model = Character
        fields = [
            "name",
            "player",
            "constitution",
            "jump",
            "heal_wounds",
            "weight_kg",
            "notes",
            "party_view",
            "rests_between_sessions",
        ]
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}
        field_classes = {
            "player": RowChoiceField,
            **dict.fromkeys(("constitution", "jump", "heal_wounds", "weight_kg"), WholeNumberField),
        }

    def __init__(self, *args: Any, campaign: Campaign, character: Character | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        # No instance: the form never writes into the character; the action re-reads it under the campaign's lock.
        self.character = character
        # A character can only belong to someone who already plays in this campaign; others join by invitation.
        player = cast(forms.ModelChoiceField, self.fields["player"])
        player.queryset = get_user_model().objects.filter(memberships__campaign=campaign)
        player.empty_label = _("— nadie (PNJ) —")
        for name in ("constitution", "jump", "heal_wounds", "weight_kg"):
            field = self.fields[name]
            field.widget.attrs.update(inputmode="numeric")
        self.fields["party_view"].help_text = _(
            "En la página de cada uno de los otros jugadores. Su jugador y tú lo veis siempre completo."
        )
        self.fields["rests_between_sessions"].help_text = _(
            "Cuando el tiempo corre entre sesiones. Desmárcalo si viaja o está preso: no descansa."
        )

    def sheet(self) -> Sheet:
        data = self.cleaned_data
        player = data["player"]
        return Sheet(
            name=data["name"],
            constitution=data["constitution"],
            jump=data["jump"],
            heal_wounds=data["heal_wounds"],
            weight_kg=data["weight_kg"],
            notes=data["notes"],
            player_id=None if player is None else player.pk,
            party_view=data["party_view"],
            rests_between_sessions=data["rests_between_sessions"],
        )

    def perform(self, by: Actor) -> actions.Outcome:
        if self.character is None:
            return actions.add_character(self.campaign, self.sheet(), by=by)
        return actions.edit_character(self.campaign, self.character, self.sheet(), by=by)
