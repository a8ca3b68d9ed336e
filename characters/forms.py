from typing import Any, cast

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from characters.models import Character


class CharacterForm(forms.ModelForm):
    class Meta:
        model = Character
        fields = ["name", "player", "constitution", "jump", "heal_wounds", "weight_kg", "notes"]
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A character can only belong to someone who already plays in this campaign; others join by invitation.
        player = cast(forms.ModelChoiceField, self.fields["player"])
        player.queryset = get_user_model().objects.filter(memberships__campaign=campaign)
        player.empty_label = _("— nadie (PNJ) —")
        for name in ("constitution", "jump", "heal_wounds", "weight_kg"):
            field = self.fields[name]
            field.widget.attrs.update(inputmode="numeric")
