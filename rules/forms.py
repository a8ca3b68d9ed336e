"""The form of the disease pages (rules.views): a campaign's own diseases, added and edited by its GM."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from rules.actions import DiseaseSheet
from rules.models import PENALTY_MIN, PG_PER_WEEK_MAX, Category, Disease


class DiseaseForm(forms.Form):
    """What a person can get wrong in a disease; rules.actions checks the rest (the name, the weekly loss)."""

    name = forms.CharField(label=_("nombre"), max_length=80)
    category = forms.ChoiceField(label=_("categoría"), choices=Category.choices)
    penalty = forms.IntegerField(
        label=_("penalización a todas las tiradas"),
        min_value=PENALTY_MIN,
        max_value=0,
        help_text=_("Un número entero ≤ 0."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    pg_per_week = forms.IntegerField(
        label=_("PG perdidos por semana"),
        required=False,
        min_value=1,
        max_value=PG_PER_WEEK_MAX,
        help_text=_("Solo enfermedades graves: un número ≥ 1."),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )

    def __init__(self, *args: Any, disease: Disease | None = None, **kwargs: Any) -> None:
        if disease is not None:
            kwargs.setdefault("initial", {name: getattr(disease, name) for name in self.base_fields})
        super().__init__(*args, **kwargs)
        self.fields["penalty"].error_messages["max_value"] = _("La penalización debe ser 0 o negativa.")

    def sheet(self) -> DiseaseSheet:
        data = self.cleaned_data
        return DiseaseSheet(data["name"], data["category"], data["penalty"], data["pg_per_week"])
