"""The generic web helpers every form of the site uses: numbers and row ids in ASCII digits only (docs/rules.md
§7.11), what a POST sent, and an action's ActionError put on the form it came from."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import HttpRequest, QueryDict
from django.utils.datastructures import MultiValueDict

from rules.actions import ActionError

_WHOLE_NUMBER = re.compile(r"\s*[-+]?[0-9]+\s*")


class WholeNumberField(forms.IntegerField):
    """A whole number in ASCII digits (docs/rules.md §7.11). Django's IntegerField reads it with int(), which also
    takes "٣", "５" or "1_000" (as 3, 5, 1000): those are refused as not a number, like any other text."""

    def to_python(self, value: Any) -> int | None:
        if isinstance(value, str) and value.strip() and not _WHOLE_NUMBER.fullmatch(value):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class RosterField(forms.MultipleChoiceField):
    """Several of the rows a form has already read (its roster), chosen by id: what ModelMultipleChoiceField does,
    without asking the database again for rows the form holds. Cleaned, it is the chosen rows, in the roster's order.
    An id is matched as the text the form drew, so "١٢" or "12.0" is no choice."""

    def __init__(self, rows: Sequence[Any], **kwargs: Any) -> None:
        self.rows = {str(row.pk): row for row in rows}
        super().__init__(choices=[(row.pk, str(row)) for row in rows], **kwargs)

    def clean(self, value: Any) -> list[Any]:
        if isinstance(value, list | tuple):  # an empty id (forged: a checkbox has its value) is no choice
            value = [pk for pk in value if pk != ""]
        chosen = set(super().clean(value))
        return [row for pk, row in self.rows.items() if pk in chosen]


class RowChoiceField(forms.ModelChoiceField):
    """A row chosen by its id, in ASCII digits like every number (int() would read "١٢" as row 12)."""

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str) and not value.isascii():
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value})
        return super().to_python(value)


def digits(text: object) -> int | None:
    """A number or id as a form or a URL sends it: ASCII digits only (docs/rules.md §7.11), short enough for a
    database id (BIGINT); None for anything else — "٣", "1_000", "-1", or 5000 digits, which int() would refuse with
    an error of its own."""
    if isinstance(text, str) and 0 < len(text) <= 18 and text.isascii() and text.isdigit():
        return int(text)
    return None


def add_action_error(form: forms.BaseForm, error: ActionError, aliases: Mapping[str, str | None] | None = None) -> None:
    """An action's ActionError on its form: beside the field it is about, or above the form. `aliases` maps the
    action's name for a field to the form's (None: above the form); "*" stands for every other name, and for none."""
    aliases = aliases or {}
    field = aliases.get(error.field or "", aliases.get("*", error.field))
    form.add_error(field if field in form.fields else None, error.message)


def posted(request: HttpRequest) -> QueryDict | None:
    """What a POST sent, even nothing at all: an empty POST is a form sent empty, refused with its reasons (a 400),
    not a fresh form (`request.POST or None` would take it for a GET)."""
    return request.POST if request.method == "POST" else None


def posted_files(request: HttpRequest) -> MultiValueDict | None:
    return request.FILES if request.method == "POST" else None
