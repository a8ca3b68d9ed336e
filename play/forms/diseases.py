"""The form of the disease pages: a campaign's own diseases, added and edited by its GM."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from play.forms.base import ActionForm, PageForm
from play.forms.fields import WholeNumberField
from rules import actions
from rules.actions import Actor, DiseaseSheet
from rules.models import PENALTY_MIN, PG_PER_WEEK_MAX, Category, Disease
from rules.signs import minus


class DiseaseForm(PageForm, ActionForm[Actor, actions.Outcome], forms.Form):
    """What a person can get wrong in a disease; rules.actions checks the rest (the name, the weekly loss). A new
    disease of the campaign's, or `disease` edited."""

    name = forms.CharField(label=_("Nombre"), max_length=80)
    category = forms.ChoiceField(label=_("Categoría"), choices=Category.choices)
    penalty = WholeNumberField(
        label=_("Penalización a todas las tiradas"),
        min_value=PENALTY_MIN,
        max_value=0,
        help_text=_("Un número entero ≤ 0."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    pg_per_week = WholeNumberField(
        label=_("PG perdidos por semana"),
        required=False,
        min_value=1,
        max_value=PG_PER_WEEK_MAX,
        help_text=_("Solo enfermedades graves: un número ≥ 1."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def __init__(self, *args: Any, campaign: Campaign, disease: Disease | None = None, **kwargs: Any) -> None:
        if disease is not None:
            kwargs.setdefault("initial", {name: getattr(disease, name) for name in self.base_fields})
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.disease = disease
        messages = self.fields["penalty"].error_messages
        messages["max_value"] = _("La penalización debe ser 0 o negativa.")
        messages["min_value"] = _("La penalización debe estar entre %(low)s y 0.") % {"low": minus(PENALTY_MIN)}

    def sheet(self) -> DiseaseSheet:
        data = self.cleaned_data
        return DiseaseSheet(data["name"], data["category"], data["penalty"], data["pg_per_week"])

    def perform(self, by: Actor) -> actions.Outcome:
        if self.disease is None:
            return actions.add_disease(self.campaign, self.sheet(), by=by)
        # Illnesses copy the numbers when they start, so this rewrites no one's history.
        return actions.edit_disease(self.campaign, self.disease, self.sheet(), by=by)
