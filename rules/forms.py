"""The form of the disease pages (rules.views): a campaign's own diseases, added and edited by its GM."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.models import Campaign
from rules.models import Disease

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# Narrower than the database columns, so that a typo like 99999999999 is a clear message, not a 500.
PENALTY_MIN = -20
PG_PER_WEEK_MAX = 100


class DiseaseForm(forms.ModelForm):
    class Meta:
        model = Disease
        fields = ["name", "category", "penalty", "pg_per_week"]

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self._limit("penalty", PENALTY_MIN, 0, max_message=gettext_lazy("La penalización debe ser 0 o negativa."))
        self._limit("pg_per_week", 1, PG_PER_WEEK_MAX)

    def _limit(self, name: str, low: int, high: int, max_message: StrOrPromise | None = None) -> None:
        field = cast(forms.IntegerField, self.fields[name])
        field.min_value, field.max_value = low, high
        bounds = (MinValueValidator, MaxValueValidator)
        field.validators = [v for v in field.validators if not isinstance(v, bounds)]  # one message, not two
        field.validators += [MinValueValidator(low), MaxValueValidator(high, message=max_message)]
        field.widget.attrs.update(min=low, max=high, inputmode="numeric")

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        # Two active diseases with one name would be ambiguous in the GM's "expose" list. A retired one may share it;
        # bringing it back is checked in disease_retire.
        if not self.instance.retired and name_taken(self.campaign, name, exclude=self.instance):
            raise ValidationError(_("Ya hay una enfermedad activa con este nombre en esta campaña."))
        return name


def name_taken(campaign: Campaign, name: str, exclude: Disease) -> bool:
    return Disease.objects.available_in(campaign).filter(name__iexact=name).exclude(pk=exclude.pk).exists()
