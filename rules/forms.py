"""The form of the disease pages (rules.views): a campaign's own diseases, added and edited by its GM. Also the fields
every form of the game uses for numbers and for rows chosen by id (play.forms, characters.forms)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import HttpRequest, QueryDict
from django.utils.datastructures import MultiValueDict
from django.utils.translation import gettext_lazy as _

from rules.actions import ActionError, DiseaseSheet
from rules.models import PENALTY_MIN, PG_PER_WEEK_MAX, Category, Disease

_WHOLE_NUMBER = re.compile(r"\s*[-+]?[0-9]+\s*")


class WholeNumberField(forms.IntegerField):
    """A whole number in ASCII digits (RULES.md section 7.11). Django's IntegerField reads it with int(), which also
    takes "٣", "５" or "1_000" (as 3, 5, 1000): those are refused as not a number, like any other text."""

    def to_python(self, value: Any) -> int | None:
        if isinstance(value, str) and value.strip() and not _WHOLE_NUMBER.fullmatch(value):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class RowChoiceField(forms.ModelChoiceField):
    """A row chosen by its id, in ASCII digits like every number (int() would read "١٢" as row 12)."""

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str) and not value.isascii():
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value})
        return super().to_python(value)


def digits(text: object) -> int | None:
    """A number or id as a form or a URL sends it: ASCII digits only (RULES.md section 7.11), short enough for a
    database id (BIGINT); None for anything else — "٣", "1_000", "-1", or 5000 digits, which int() would refuse with
    an error of its own."""
    if isinstance(text, str) and 0 < len(text) <= 18 and text.isascii() and text.isdigit():
        return int(text)
    return None


def refuse(form: forms.BaseForm, error: ActionError, aliases: Mapping[str, str] | None = None) -> None:
    """An action's refusal on its form: beside the field it is about (the action's name for a field may differ from
    the form's: `aliases`), or above the form."""
    field = (aliases or {}).get(error.field or "", error.field)
    form.add_error(field if field in form.fields else None, error.message)


def posted(request: HttpRequest) -> QueryDict | None:
    """What a POST sent, even nothing at all: an empty POST is a form sent empty, refused with its reasons (a 400),
    not a fresh form (`request.POST or None` would take it for a GET)."""
    return request.POST if request.method == "POST" else None


def posted_files(request: HttpRequest) -> MultiValueDict | None:
    return request.FILES if request.method == "POST" else None


class DiseaseForm(forms.Form):
    """What a person can get wrong in a disease; rules.actions checks the rest (the name, the weekly loss)."""

    name = forms.CharField(label=_("nombre"), max_length=80)
    category = forms.ChoiceField(label=_("categoría"), choices=Category.choices)
    penalty = WholeNumberField(
        label=_("penalización a todas las tiradas"),
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

    def __init__(self, *args: Any, disease: Disease | None = None, **kwargs: Any) -> None:
        if disease is not None:
            kwargs.setdefault("initial", {name: getattr(disease, name) for name in self.base_fields})
        super().__init__(*args, **kwargs)
        self.fields["penalty"].error_messages["max_value"] = _("La penalización debe ser 0 o negativa.")

    def sheet(self) -> DiseaseSheet:
        data = self.cleaned_data
        return DiseaseSheet(data["name"], data["category"], data["penalty"], data["pg_per_week"])
