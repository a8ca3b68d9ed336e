from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from .models import Character


class CharacterForm(forms.ModelForm):
    class Meta:
        model = Character
        fields = ["name", "player", "constitution", "jump", "heal_wounds", "weight_kg", "notes"]
        widgets = {"notes": forms.Textarea(attrs={"rows": 3})}

    def __init__(self, *args, campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # A character can only belong to someone who already plays in this campaign; others join by invitation.
        self.fields["player"].queryset = get_user_model().objects.filter(memberships__campaign=campaign)
        self.fields["player"].empty_label = _("— nadie (PNJ) —")
        for name in ("constitution", "jump", "heal_wounds", "weight_kg"):
            field = self.fields[name]
            field.widget.attrs.update(inputmode="numeric")
