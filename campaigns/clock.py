"""Campaign time for people: showing the clock and durations, and reading durations the GM types.

The clock itself is whole seconds since the campaign began (docs/rules.md §6); these helpers only translate between
that number and what a table says out loud ("Día 3, 14:30", "1 semana 2 días", "3 turnos"). The calendar units are
docs/rules.md §7.14's: a turn is 6 s, a month 30 days and a year 365 days (the engine defines the units, this module the
turn, which only people use).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from rules.engine import DAY, HOUR, LIMITS, MINUTE, MONTH, WEEK, YEAR

TURN = 6  # one combat turn
# docs/rules.md §7.11: far beyond any campaign, yet small enough that a typo like "99999999w" is caught.
MAX_DURATION = LIMITS["advance"][1]

# Durations that parse_duration reads, said in every message that refuses one (a test reads each of them back).
EXAMPLES = gettext_lazy("90s, 3 turnos, 1h30, 1d12h, 2 semanas o 1 año")

# Every spelling the GM may type, in Spanish or English, singular or plural, written without accents: the input is
# compared after its accents are removed, so "días" and "dias", "años" and "anos" both work. "m" is always minutes:
# a month is "mes" or "mo".
_UNITS: dict[str, int] = {
    **dict.fromkeys(("s", "seg", "segs", "segundo", "segundos", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("t", "turno", "turnos", "turn", "turns"), TURN),
    **dict.fromkeys(("m", "min", "mins", "minuto", "minutos", "minute", "minutes"), MINUTE),
    **dict.fromkeys(("h", "hr", "hrs", "hora", "horas", "hour", "hours"), HOUR),
    **dict.fromkeys(("d", "dia", "dias", "day", "days"), DAY),
    **dict.fromkeys(("w", "wk", "wks", "sem", "semana", "semanas", "week", "weeks"), WEEK),
    **dict.fromkeys(("mes", "meses", "mo", "mos", "month", "months"), MONTH),
    **dict.fromkeys(("y", "yr", "yrs", "ano", "anos", "year", "years"), YEAR),
}
# A bare number after hours is minutes, after minutes seconds, as on a clock face: "1h30", "2m30".
_CLOCK_NEXT = {HOUR: MINUTE, MINUTE: 1}
# "1 hora y 30 minutos", "1 day, 2 hours": words that only join parts (commas are spaces).
_JOINERS = frozenset({"y", "and"})
_TOKEN = re.compile(r"[0-9]+|[^\W\d_]+")  # a number in ASCII digits, or a word
_MAX_TEXT = 100
_MAX_DIGITS = 15  # enough for MAX_DURATION in seconds; longer numbers are too large whatever their unit

# The units a duration is said in, largest first: (seconds, words for a count of them). Hours, minutes and seconds
# are abbreviations, which do not change in the plural.
_SAID_IN: list[tuple[int, Callable[[int], str]]] = [
    (YEAR, lambda n: ngettext("%(count)s año", "%(count)s años", n) % {"count": n}),
    (MONTH, lambda n: ngettext("%(count)s mes", "%(count)s meses", n) % {"count": n}),
    (WEEK, lambda n: ngettext("%(count)s semana", "%(count)s semanas", n) % {"count": n}),
    (DAY, lambda n: ngettext("%(count)s día", "%(count)s días", n) % {"count": n}),
    (HOUR, lambda n: _("%(count)s h") % {"count": n}),
    (MINUTE, lambda n: _("%(count)s min") % {"count": n}),
    (1, lambda n: _("%(count)s s") % {"count": n}),
]
SPOKEN_UNITS = 2  # how many units a person says: "2 semanas 5 días", "1 h 58 min"


def format_clock(seconds: int) -> str:
    """The campaign clock as the table says it: "Día 1, 00:00" at the start; seconds only when there are some."""
    day, rest = divmod(seconds, DAY)
    hours, rest = divmod(rest, HOUR)
    minutes, secs = divmod(rest, MINUTE)
    time = f"{hours:02d}:{minutes:02d}:{secs:02d}" if secs else f"{hours:02d}:{minutes:02d}"
    # Day numbering starts at 1: the first day of a campaign is "day 1", never "day 0".
    return _("Día %(day)s, %(time)s") % {"day": day + 1, "time": time}


def format_duration(seconds: int, units: int | None = None) -> str:
    """A duration in words, largest unit first: "6 s", "1 h 30 min", "1 año 2 meses 1 semana 2 días".

    Exact by default (the log, the preview's title; `parse_duration` reads it back). With `units`, only that many
    units from the largest one present down, the rest dropped: "2 semanas 5 días 1 h 58 min 12 s" becomes "2 semanas
    5 días", "2 semanas 3 h" becomes "2 semanas". Dropped, never rounded up: what is said is never more than the truth.
    """
    if seconds == 0:
        return _("%(count)s s") % {"count": 0}
    parts = []
    first: int | None = None  # the index of the largest unit present
    for index, (size, words) in enumerate(_SAID_IN):
        count, seconds = divmod(seconds, size)
        if count:
            first = index if first is None else first
            if units is None or index < first + units:
                parts.append(words(count))
    return " ".join(parts)


def spoken_duration(seconds: int) -> str:
    """A duration as a person says it, to its two largest units: "2 semanas 5 días", "1 h 58 min"."""
    return format_duration(seconds, SPOKEN_UNITS)


def parse_duration(text: str) -> int:
    """Whole seconds from what the GM typed: "90" (seconds), "8h", "1h30", "1d12h", "1w2d", "3t", "2 semanas",
    "1 h y 30 min", "6 meses", "1000 años".

    Units are s, t (turns of 6 s), m (minutes), h, d, w (weeks), mes (30 days) and y or año (365 days), or their
    Spanish and English words; case, accents and commas do not matter ("años" and "anos" both work). A number with no
    unit is seconds when it is all there is ("90"); after hours it is minutes and after minutes seconds, as on a clock
    ("1h30" is 1 h 30 min, "2m30" 2 min 30 s); anywhere else it is refused (in "1d 12" the unit is missing). "y" after
    a number is years; between parts it joins them ("1 h y 30"). Raises ValueError with a message for the GM, which
    echoes the text as typed and gives examples that work, when the text is empty, not a duration, zero or negative,
    or longer than 1000 years.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(_("Escribe una duración, por ejemplo %(examples)s.") % {"examples": EXAMPLES})
    # Composed, so that an accent typed as its own character stays part of its letter.
    typed = unicodedata.normalize("NFC", text.strip())
    if len(typed) > _MAX_TEXT:
        raise ValueError(_("La duración es demasiado larga para leerla."))
    if typed.startswith("-"):
        raise ValueError(_("La duración debe ser mayor que cero."))
    # Only ASCII digits, letters, spaces and commas (docs/rules.md §7.11): "1.5h" must not be read as "1" and a stray
    # ".5h", nor "²" or "８" as 2 or 8.
    if not all(c in "0123456789," or c.isspace() or c.isalpha() for c in typed):
        raise ValueError(not_understood(typed))

    total, number, last_unit = 0, None, None
    for token in _TOKEN.findall(typed):
        if token[0].isdigit():
            if number is not None:
                raise ValueError(missing_unit(number))
            if len(token) > _MAX_DIGITS:
                raise ValueError(too_long())
            number = token
            continue
        word = _without_accents(token.lower())
        if number is None:
            if word in _JOINERS and last_unit is not None:
                continue
            raise ValueError(not_understood(typed))
        if word not in _UNITS:
            raise ValueError(unknown_unit(token))
        last_unit = _UNITS[word]
        total += int(number) * last_unit
        number = None
    if number is not None:
        if last_unit is None:
            total = int(number)  # the whole text is a number: seconds
        elif last_unit in _CLOCK_NEXT:
            total += int(number) * _CLOCK_NEXT[last_unit]
        else:
            raise ValueError(missing_unit(number))

    if total > MAX_DURATION:
        raise ValueError(too_long())
    if total <= 0:
        raise ValueError(_("La duración debe ser mayor que cero."))
    return total


def not_understood(typed: str) -> str:
    message = _("No se entiende la duración «%(text)s». Escribe algo como %(examples)s.")
    return message % {"text": typed, "examples": EXAMPLES}


def unknown_unit(typed: str) -> str:
    message = _(
        "Unidad desconocida «%(unit)s». Usa s, t (turnos), m, h, d, w (semanas), mes o año: por ejemplo %(examples)s."
    )
    return message % {"unit": typed, "examples": EXAMPLES}


def missing_unit(number: str) -> str:
    message = _("Falta la unidad después de %(number)s. Escribe algo como %(examples)s.")
    return message % {"number": number, "examples": EXAMPLES}


def too_long() -> str:
    return _("La duración es demasiado larga: como mucho %(years)s años.") % {"years": MAX_DURATION // YEAR}


def _without_accents(text: str) -> str:
    # NFD, not NFKD: "días" becomes "dias" and "años" "anos", while "ª" stays what it is and is refused.
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
