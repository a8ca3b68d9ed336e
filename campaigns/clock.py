"""Campaign time for people: showing the clock and durations, and reading durations the GM types.

The clock itself is whole seconds since the campaign began (RULES.md section 6); these helpers only translate between
that number and what a table says out loud ("Día 3, 14:30", "1 semana 2 días", "3 turnos").
"""

from __future__ import annotations

import re
import unicodedata

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from rules.engine import DAY, HOUR, LIMITS, MINUTE, WEEK, YEAR

TURN = 6  # one combat turn
# RULES.md section 7.11: far beyond any campaign, yet small enough that a typo like "99999999w" is caught.
MAX_DURATION = LIMITS["advance"][1]

# Every spelling the GM may type, in Spanish or English, singular or plural, written without accents: the input is
# compared after its accents are removed, so "días" and "dias" both work.
_UNITS: dict[str, int] = {
    **dict.fromkeys(("s", "seg", "segs", "segundo", "segundos", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("t", "turno", "turnos", "turn", "turns"), TURN),
    **dict.fromkeys(("m", "min", "mins", "minuto", "minutos", "minute", "minutes"), MINUTE),
    **dict.fromkeys(("h", "hr", "hrs", "hora", "horas", "hour", "hours"), HOUR),
    **dict.fromkeys(("d", "dia", "dias", "day", "days"), DAY),
    **dict.fromkeys(("w", "sem", "semana", "semanas", "week", "weeks"), WEEK),
}
_CHARACTERS = re.compile(r"[0-9a-z\s]+")
_PART = re.compile(r"\s*([0-9]+)\s*([a-z]*)\s*")
# "1 hora y 30 minutos", "1 day, 2 hours": words and commas that only join parts.
_JOINERS = re.compile(r",|\b(?:y|and)\b")
_MAX_TEXT = 100
_MAX_DIGITS = 15  # enough for MAX_DURATION in seconds; longer numbers are too large whatever their unit


def format_clock(seconds: int) -> str:
    """The campaign clock as the table says it: "Día 1, 00:00" at the start; seconds only when there are some."""
    day, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, secs = divmod(rest, MINUTE)
    time = f"{hours:02d}:{minutes:02d}:{secs:02d}" if secs else f"{hours:02d}:{minutes:02d}"
    # Day numbering starts at 1: the first day of a campaign is "day 1", never "day 0".
    return _("Día %(day)s, %(time)s") % {"day": day + 1, "time": time}


def format_duration(seconds: int) -> str:
    """A short, exact duration: "6 s", "1 h 30 min", "1 semana 2 días". `parse_duration` reads it back."""
    if seconds == 0:
        return _("%(count)s s") % {"count": 0}
    weeks, rest = divmod(seconds, WEEK)
    days, rest = divmod(rest, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, secs = divmod(rest, MINUTE)
    parts = []
    if weeks:
        parts.append(ngettext("%(count)s semana", "%(count)s semanas", weeks) % {"count": weeks})
    if days:
        parts.append(ngettext("%(count)s día", "%(count)s días", days) % {"count": days})
    # Hours, minutes and seconds are abbreviations, which do not change in the plural.
    if hours:
        parts.append(_("%(count)s h") % {"count": hours})
    if minutes:
        parts.append(_("%(count)s min") % {"count": minutes})
    if secs:
        parts.append(_("%(count)s s") % {"count": secs})
    return " ".join(parts)


def parse_duration(text: str) -> int:
    """Whole seconds from what the GM typed: "90" (seconds), "8h", "1d12h", "1w2d", "3t", "2 semanas", "1 h y 30 min".

    Units are s, t (turns of 6 s), m (minutes), h, d and w (weeks), or their Spanish and English words; case and
    accents do not matter. Raises ValueError with a message for the GM when the text is empty, not a duration, zero
    or negative, or longer than 1000 years.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(_("Escribe una duración, por ejemplo 8h, 1d12h o 3 turnos."))
    original = text.strip()
    if len(original) > _MAX_TEXT:
        raise ValueError(_("La duración es demasiado larga para leerla."))
    normalized = _JOINERS.sub(" ", _without_accents(original.lower())).strip()
    if normalized.startswith("-"):
        raise ValueError(_("La duración debe ser mayor que cero."))
    not_understood = _("No se entiende la duración «%(text)s». Escribe algo como 8h, 1d12h o 3 turnos.") % {
        "text": original
    }
    # Only whole numbers and unit words; "1.5h" must not be read as "1" and a stray ".5h".
    if not _CHARACTERS.fullmatch(normalized):
        raise ValueError(not_understood)

    total = 0
    position = 0
    while position < len(normalized):
        part = _PART.match(normalized, position)
        if part is None or part.end() == position:
            raise ValueError(not_understood)
        digits, unit = part.groups()
        if len(digits) > _MAX_DIGITS:
            raise ValueError(too_long())
        if not unit:
            # A bare number means seconds only when it is the whole text ("90"); in "1h 30" the unit is missing.
            if position != 0 or part.end() != len(normalized):
                raise ValueError(_("Falta la unidad después de %(number)s (s, t, m, h, d o w).") % {"number": digits})
            unit = "s"
        if unit not in _UNITS:
            raise ValueError(
                _("Unidad desconocida «%(unit)s». Usa s, t (turnos), m, h, d o w (semanas).") % {"unit": unit}
            )
        total += int(digits) * _UNITS[unit]
        position = part.end()

    if total > MAX_DURATION:
        raise ValueError(too_long())
    if total <= 0:
        raise ValueError(_("La duración debe ser mayor que cero."))
    return total


def too_long() -> str:
    return _("La duración es demasiado larga: como mucho %(years)s años.") % {"years": MAX_DURATION // YEAR}


def _without_accents(text: str) -> str:
    # NFD, not NFKD: "días" becomes "dias", but "²" or "８" stay what they are and are refused (RULES.md 7.11: ASCII
    # digits only) instead of being read as 2 or 8.
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
