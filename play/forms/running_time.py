"""The GM's control of time between sessions: whether it runs, how much campaign time a real day carries, and at what
hour of which time zone each day's tick falls (rules.actions.set_running_time)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from campaigns.clock import format_duration, parse_duration
from campaigns.models import Campaign
from play.forms.base import ActionForm
from rules import actions
from rules.actions import Actor

# "por día", "al día", "cada día", "per day", "a day", "/día", "/d" after the duration: the label says it already.
PER_DAY = re.compile(r"\s*(?:/\s*d(?:ia|ay)?|(?:por|al|cada|per|a|each)\s+(?:dia|day))\s*$", re.IGNORECASE)
# Zones offered as the GM types (any IANA name is taken): those of the Spanish-speaking world first.
ZONES = (
    "Europe/Madrid",
    "Atlantic/Canary",
    "America/Mexico_City",
    "America/Bogota",
    "America/Lima",
    "America/Caracas",
    "America/Santiago",
    "America/Argentina/Buenos_Aires",
    "America/Montevideo",
    "America/New_York",
    "America/Los_Angeles",
    "Europe/London",
    "Europe/Lisbon",
    "UTC",
)


def without_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")


HOURS = tuple((str(hour), f"{hour:02d}:00") for hour in range(24))


@dataclass(frozen=True)
class Control:
    """What the GM's control shows (components/running_time_control.html): the campaign's schedule, or what was sent
    with its refusals. Plain values, so that its region is drawn once for every table alike and kept (play.screens)."""

    runs: bool
    rate: str
    hour: str
    zone: str
    rate_errors: tuple[str, ...] = ()
    hour_errors: tuple[str, ...] = ()
    zone_errors: tuple[str, ...] = ()
    other_errors: tuple[str, ...] = ()
    hours: tuple[tuple[str, str], ...] = HOURS
    zones: tuple[str, ...] = ZONES


def control_of(campaign: Campaign) -> Control:
    return Control(campaign.runs, format_duration(campaign.run_rate), str(campaign.run_hour), campaign.run_zone)


class RunningTimeForm(ActionForm[Actor, actions.Outcome], forms.Form):
    runs = forms.BooleanField(label=_("El tiempo corre entre sesiones"), required=False)
    rate = forms.CharField(
        label=_("Cada día real pasa"),
        max_length=100,
        help_text=_("Por ejemplo 1 día, 12 horas o 1 semana."),
    )
    hour = forms.TypedChoiceField(label=_("a las"), choices=HOURS, coerce=int)
    zone = forms.CharField(label=_("Zona horaria"), max_length=64, help_text=_("Como Europe/Madrid."))

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        kwargs.setdefault("auto_id", "running-%s")
        kwargs["initial"] = {
            "runs": campaign.runs,
            "rate": format_duration(campaign.run_rate),
            "hour": str(campaign.run_hour),
            "zone": campaign.run_zone,
        }
        super().__init__(*args, **kwargs)
        self.campaign = campaign

    def control(self) -> Control:
        """What the control shows of this form: what was sent, with its refusals (a fresh form: the campaign's)."""
        if not self.is_bound:
            return control_of(self.campaign)

        def sent(name: str) -> str:
            value = self.data.get(name, "")
            return value if isinstance(value, str) else ""

        def errors(name: str | None) -> tuple[str, ...]:
            return tuple(str(message) for message in self.errors.get(name or "__all__", ()))

        return Control(
            bool(self.data.get("runs")),
            sent("rate"),
            sent("hour"),
            sent("zone"),
            errors("rate"),
            errors("hour"),
            errors("zone"),
            errors(None),
        )

    def clean_rate(self) -> int:
        typed = self.cleaned_data["rate"]
        try:
            return parse_duration(PER_DAY.sub("", without_accents(typed)) or typed)
        except ValueError as error:
            raise forms.ValidationError(str(error)) from error

    def clean_zone(self) -> str:
        return str(self.cleaned_data["zone"]).strip()

    def perform(self, by: Actor) -> actions.Outcome:
        data = self.cleaned_data
        return actions.set_running_time(
            self.campaign, by=by, runs=data["runs"], rate=data["rate"], hour=data["hour"], zone=data["zone"]
        )
