"""The Jinja2 environment of the fragments every blow draws (play/jinja2/, by Django's own Jinja2 backend): a
character's state — its name, PG, wounds and illnesses — on its card (card_state.jinja, the region "card-<id>") and on
its sheet (pg, wounds and illnesses, drawn by the sheet's region: play.screens.regions.sheet; what of its PG both
show, once, in pg_parts); a log's entries and the
log they go in (the regions "log-entries" and "sheet-log", older pages, a recap: play.screens.log); a player's
companions (party.jinja, the region "party": a blow to one character redraws it on every other player's page). Every
other template is Django's. Django's templates drew these in twice the time or more (the companions: 166–182 against
54–86 µs), and with them click → last screen lost its goal at 100 campaigns × 6 (bench/RESULTS.md, 2026-12-05 late
evening and 2026-12-06).

The fragments speak as Django's templates do: `_("…")` is Django's gettext, its translation taken as the markup it is
(as `{% translate %}` takes it), and `_("… %(n)s…") % {"n": value}` puts each value in escaped, unless it is markup
already, as `{% blocktranslate %}` does. `makemessages` finds each `_("…")` (its string closed at once) in them."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from jinja2 import Environment
from markupsafe import Markup

from campaigns.clock import format_duration, spoken_duration
from rules.signs import signed


def duration(seconds: int | None) -> str:
    """A duration as a person says it («2 semanas 5 días»), the exact one in its tooltip when that says more."""
    if seconds is None:
        return ""
    spoken, exact = spoken_duration(seconds), format_duration(seconds)
    return spoken if spoken == exact else format_html('<span title="{}">{}</span>', exact, spoken)


def duration_in_full(seconds: int | None) -> str:
    """The exact duration where the spoken one leaves units out (else ""): for the sheet's detail."""
    if seconds is None or (exact := format_duration(seconds)) == spoken_duration(seconds):
        return ""
    return exact


def translated(message: str) -> Markup:
    """`_("…")` in a fragment: the words in the reader's language."""
    return Markup(gettext(message))  # noqa: S704 — our own catalogue's words, as {% translate %} writes them


def url(name: str, *args: Any) -> str:
    """`url("name", …)` in a fragment: `{% url %}`'s address."""
    return reverse(name, args=args)


def environment(**options: Any) -> Environment:
    env = Environment(**options)  # noqa: S701 — Django's backend turns autoescape on
    env.globals.update(_=translated, url=url)
    env.filters.update(duration=duration, duration_in_full=duration_in_full, signed=signed)
    return env
