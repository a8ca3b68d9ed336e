"""Quick NPCs on the GM's table: several characters from one sheet (rules.actions.add_characters), and several taken
out at once (rules.actions.remove_characters). The sheet's fields are the single character's form's own."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from characters.models import Character, NpcTemplate
from play.forms.base import ActionForm, PageForm
from play.forms.characters import CharacterForm
from play.forms.fields import WholeNumberField
from rules import actions
from rules.actions import Actor, Sheet
from rules.actions.core import checked_name
from rules.actions.npcs import NUMBER_MARK

SHEET = ("constitution", "jump", "heal_wounds", "weight_kg", "party_view", "notes")


class SeveralCharactersForm(PageForm, ActionForm[Actor, actions.Outcome], forms.Form):
    """N characters from one sheet, numbered from a name ("Guardia" → Guardia 1, Guardia 2…)."""

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        sheet = CharacterForm(campaign=campaign).fields  # the single character's fields, with its checks
        self.fields = {
            "name": forms.CharField(
                label=_("Nombre"),
                max_length=actions.sheet.NAME_LENGTH,
                help_text=_(
                    "Cada uno lleva un número: «Guardia» da Guardia 1, Guardia 2… y, si ya hay guardias numerados, "
                    "sigue la cuenta. Pon %(mark)s donde quieras el número: «Lobo %(mark)s del bosque»."
                )
                % {"mark": NUMBER_MARK},
            ),
            "count": WholeNumberField(
                label=_("Cuántos"),
                min_value=1,
                max_value=settings.CHARACTERS_PER_CAMPAIGN,
                initial=2,
                widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
            ),
            **{name: sheet[name] for name in SHEET},
        }
        self.focus(self.shown())

    def sheet(self) -> Sheet:
        data = self.cleaned_data
        return Sheet(name=data["name"], **{name: data[name] for name in SHEET})

    def perform(self, by: Actor) -> actions.Outcome:
        if self.keeping:
            return actions.save_template(self.campaign, self.sheet(), self.cleaned_data["count"], by=by)
        return actions.add_characters(self.campaign, self.sheet(), self.cleaned_data["count"], by=by)

    @property
    def kept_name(self) -> str:
        """The name a template sent with "Guardar como plantilla" is kept under: the one form of every name
        (rules.actions.core.checked_name), not the keys typed: "Lobo" with a zero-width space inside is "Lobo"."""
        return checked_name(self.cleaned_data["name"], actions.sheet.NAME_LENGTH)

    @property
    def keeping(self) -> bool:
        """Sent with "Guardar como plantilla": the values are kept under their name, and nobody is added."""
        return self.is_bound and "save_template" in self.data


def template_initial(template: NpcTemplate) -> dict[str, object]:
    """The form's values as a template keeps them."""
    return {name: getattr(template, name) for name in ("name", "count", *SHEET)}


class RowsChoiceField(forms.ModelMultipleChoiceField):
    """Rows chosen by id, in ASCII digits only (int() would read "١٢" as row 12)."""

    def clean(self, value: Any) -> QuerySet[Any]:
        if isinstance(value, list | tuple) and any(not isinstance(v, str) or not v.isascii() for v in value):
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice", params={"value": "?"})
        return super().clean(value)


class RemoveSeveralForm(ActionForm[Actor, actions.Outcome], forms.Form):
    """The characters in play, to tick the ones that leave together."""

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.fields["characters"] = RowsChoiceField(
            label=_("Personajes que salen de la campaña"),
            queryset=Character.objects.filter(campaign=campaign).order_by("name", "id"),
            widget=forms.CheckboxSelectMultiple,
            error_messages={
                "required": _("Elige al menos un personaje."),
                "invalid_choice": _("Alguno de esos personajes ya no está en la campaña: vuelve a elegir."),
                "invalid_pk_value": _("Alguno de esos personajes ya no está en la campaña: vuelve a elegir."),
            },
        )

    def perform(self, by: Actor) -> actions.Outcome:
        return actions.remove_characters(self.campaign, self.cleaned_data["characters"], by=by)
