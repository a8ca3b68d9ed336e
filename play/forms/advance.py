"""The clock: advancing campaign time by a preset or a typed duration, who rests meanwhile, and the preview of what
the advance will do before it is applied."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from campaigns.clock import EXAMPLES, parse_duration
from characters.models import Character
from play.forms.base import TableActionForm
from play.forms.fields import WholeNumberField, digits
from rules import actions, queries
from rules.actions import Actor

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


# Presets of the clock control: (seconds, label, resting). Time in action is not rest; the long ones are.
PRESETS: list[tuple[str, StrOrPromise, bool]] = [
    ("6", _("+1 turno"), False),
    ("60", _("+1 minuto"), False),
    ("3600", _("+1 hora"), False),
    ("28800", _("+8 horas de descanso"), True),
    ("86400", _("+1 día de descanso"), True),
    ("604800", _("+1 semana de descanso"), True),
]


class RestingRow(NamedTuple):
    pk: int
    name: str
    ticked: bool


class AdvanceForm(TableActionForm):
    """The clock: a preset button, or the duration typed in (Enter in that field advances exactly what it says)."""

    action_fields = {"seconds": "duration"}

    in_play: list[Character] | None = None  # the characters in play, when the caller has them at hand (the cards)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["preset"] = forms.ChoiceField(required=False, choices=[(v, label) for v, label, _r in PRESETS])
        self.fields["duration"] = forms.CharField(
            label=_("Otra duración"),
            required=False,
            max_length=100,
            help_text=format_lazy(_("Por ejemplo {examples}. Descansan los marcados."), examples=EXAMPLES),
        )
        # Removed characters stay valid choices, so that a tab that still shows one can still advance the clock.
        everyone = Character.everyone.filter(campaign=self.campaign)
        self.fields["resting"] = forms.ModelMultipleChoiceField(
            label=_("Descansan (con los botones de descanso y con otra duración)"),
            queryset=everyone,
            required=False,
            widget=forms.CheckboxSelectMultiple,
        )
        self.fields["shown"] = forms.ModelMultipleChoiceField(
            queryset=everyone, required=False, widget=forms.MultipleHiddenInput
        )
        self.fields["preview_first"] = forms.BooleanField(label=_("Ver antes qué pasará"), required=False)
        # The campaign version a preview was made at, sent back by its "Aplicar" button.
        self.fields["version"] = WholeNumberField(
            required=False, min_value=0, max_value=2**63 - 1, widget=forms.HiddenInput
        )
        # An open preview asked for again because the table changed since (static/js/table.js): a preview, whatever
        # version it was made at.
        self.fields["redraw"] = forms.BooleanField(required=False, widget=forms.HiddenInput)

    @cached_property
    def resting_choices(self) -> list[Character]:
        return self.roster if self.in_play is None else self.in_play

    @cached_property
    def resting_ticked(self) -> set[int]:
        """Who is ticked: what was posted, or everyone on a fresh form (everyone rests unless unticked)."""
        if not self.is_bound:
            return {character.pk for character in self.resting_choices}
        posted = self["resting"].value() or []
        return {pk for value in posted if (pk := digits(value)) is not None}

    @property
    def resting_rows(self) -> tuple[RestingRow, ...]:
        """Who rests, row by row, as components/resting.html draws them."""
        ticked = self.resting_ticked
        return tuple(RestingRow(c.pk, c.name, c.pk in ticked) for c in self.resting_choices)

    @property
    def presets(self) -> list[tuple[str, StrOrPromise, bool]]:
        return PRESETS

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("preset"):
            data["seconds"] = int(data["preset"])
            data["rest"] = {value: rest for value, _label, rest in PRESETS}[data["preset"]]
        elif data.get("duration"):
            try:
                data["seconds"] = parse_duration(data["duration"])
            except ValueError as error:
                self.add_error("duration", str(error))
            data["rest"] = True
        elif not self.errors:
            self.add_error("duration", _("Elige un botón o escribe una duración."))
        return data

    def who_rests(self) -> dict[str, Any]:
        """advance_clock's (and preview_advance's) arguments for who rests."""
        data = self.cleaned_data
        if not data["rest"]:
            return {"resting": []}
        if data["shown"]:
            # Only those this tab showed and the GM unticked stay awake: a character added since rests by default.
            return {"not_resting": set(data["shown"]) - set(data["resting"])}
        return {"resting": [character for character in data["resting"] if not character.removed]}

    @property
    def previewing(self) -> bool:
        """ "Ver antes qué pasará" ticked, and no preview applied yet (or one asked for again): show what the advance
        will do, change nothing."""
        data = self.cleaned_data
        return bool(data.get("preview_first")) and (data.get("version") is None or bool(data.get("redraw")))

    def preview(self) -> queries.AdvancePreview:
        return queries.preview_advance(self.campaign, self.cleaned_data["seconds"], **self.who_rests())

    def perform(self, by: Actor) -> actions.Outcome:
        # Applying a preview names the campaign version it was made at: if anything changed since, it is refused.
        version = self.cleaned_data.get("version")
        return actions.advance_clock(
            self.campaign, self.cleaned_data["seconds"], by=by, version=version, **self.who_rests()
        )
