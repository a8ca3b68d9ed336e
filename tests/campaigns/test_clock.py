"""Campaign time for people: the clock, durations, and durations typed by the GM. No database."""

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns import clock
from campaigns.clock import (
    DAY,
    EXAMPLES,
    HOUR,
    MAX_DURATION,
    MINUTE,
    MONTH,
    TURN,
    WEEK,
    YEAR,
    format_clock,
    format_duration,
    parse_duration,
    spoken_duration,
)
from rules import engine
from tests.examples import examples


def test_units():
    assert (TURN, MINUTE, HOUR, DAY, WEEK) == (6, 60, 3600, 86_400, 604_800)
    # docs/rules.md §7.14: a month is 30 days and a year 365, defined once, in the engine.
    assert (MONTH, YEAR) == (30 * DAY, 365 * DAY) and (clock.MONTH, clock.YEAR) == (engine.MONTH, engine.YEAR)


# --- format_clock -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "Día 1, 00:00"),
        (6, "Día 1, 00:00:06"),
        (MINUTE, "Día 1, 00:01"),
        (DAY - 1, "Día 1, 23:59:59"),
        (DAY, "Día 2, 00:00"),
        (12 * DAY + 14 * HOUR + 30 * MINUTE, "Día 13, 14:30"),
        (12 * DAY + 14 * HOUR + 30 * MINUTE + 5, "Día 13, 14:30:05"),
        (999 * DAY + 9 * HOUR, "Día 1000, 09:00"),
    ],
)
def test_format_clock(seconds, text):
    assert format_clock(seconds) == text


# --- format_duration ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "0 s"),
        (TURN, "6 s"),
        (MINUTE, "1 min"),
        (90, "1 min 30 s"),
        (HOUR + 30 * MINUTE, "1 h 30 min"),
        (DAY, "1 día"),
        (2 * DAY, "2 días"),
        (DAY + 12 * HOUR, "1 día 12 h"),
        (WEEK, "1 semana"),
        (WEEK + 2 * DAY, "1 semana 2 días"),
        (3 * WEEK + DAY + HOUR + MINUTE + 1, "3 semanas 1 día 1 h 1 min 1 s"),
        (MONTH, "1 mes"),
        (2 * MONTH + WEEK, "2 meses 1 semana"),
        (YEAR, "1 año"),
        (1000 * YEAR, "1000 años"),
        (YEAR + MONTH + 2 * DAY + 5, "1 año 1 mes 2 días 5 s"),
    ],
)
def test_format_duration(seconds, text):
    assert format_duration(seconds) == text


@pytest.mark.parametrize(
    ("seconds", "spoken"),
    [
        (0, "0 s"),
        (45, "45 s"),
        (HOUR + 58 * MINUTE + 12, "1 h 58 min"),
        (2 * WEEK + 5 * DAY + HOUR + 58 * MINUTE + 12, "2 semanas 5 días"),  # issue 24's healing time
        (2 * WEEK + 3 * HOUR, "2 semanas"),  # the unit after the largest is none: nothing smaller is said
        (DAY + 59 * MINUTE + 59, "1 día"),  # dropped, never rounded up
        (YEAR + MONTH + 2 * DAY + 5, "1 año 1 mes"),
        (HOUR + 30 * MINUTE, "1 h 30 min"),
    ],
)
def test_spoken_duration_says_the_two_largest_units(seconds, spoken):
    assert spoken_duration(seconds) == spoken


@settings(max_examples=examples(200), deadline=None)
@given(st.integers(0, MAX_DURATION))
def test_spoken_duration_is_the_start_of_the_exact_one_and_never_more(seconds):
    spoken = spoken_duration(seconds)
    assert format_duration(seconds).startswith(spoken) and len(spoken.split()) <= 4
    assert seconds == 0 or 0 < parse_duration(spoken) <= seconds


# --- parse_duration -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90),
        (" 90 ", 90),
        ("30s", 30),
        ("3t", 3 * TURN),
        ("90m", 90 * MINUTE),
        ("8h", 8 * HOUR),
        ("1d12h", DAY + 12 * HOUR),
        ("1w2d", WEEK + 2 * DAY),
        ("1W 2D", WEEK + 2 * DAY),
        ("1h 30m", HOUR + 30 * MINUTE),
        ("1 día", DAY),
        ("1 dia", DAY),
        ("2 días", 2 * DAY),
        ("2 semanas", 2 * WEEK),
        ("3 turnos", 3 * TURN),
        ("1 turno", TURN),
        ("1 hora", HOUR),
        ("30 minutos", 30 * MINUTE),
        ("45 segundos", 45),
        ("1 hora y 30 minutos", HOUR + 30 * MINUTE),
        ("1 Día, 2 Horas", DAY + 2 * HOUR),
        ("2 weeks 1 day", 2 * WEEK + DAY),
        ("3 turns", 3 * TURN),
        ("1 h 30 min", HOUR + 30 * MINUTE),
        ("1 semana 2 días", WEEK + 2 * DAY),
        ("1000w", 1000 * WEEK),
        # issue 24: months and years, compact forms, accents optional
        ("1000 años", 1000 * YEAR),
        ("1000 anos", 1000 * YEAR),
        ("1 año", YEAR),
        ("2y", 2 * YEAR),
        ("1 year 2 months", YEAR + 2 * MONTH),
        ("6 meses", 6 * MONTH),
        ("1 mes", MONTH),
        ("3mo", 3 * MONTH),
        ("1h30", HOUR + 30 * MINUTE),
        ("1h 30", HOUR + 30 * MINUTE),
        ("1 h y 30", HOUR + 30 * MINUTE),
        ("2m30", 2 * MINUTE + 30),
        ("1d12h", DAY + 12 * HOUR),
        ("1d12h30", DAY + 12 * HOUR + 30 * MINUTE),
        ("1 h 30 min", HOUR + 30 * MINUTE),
        ("1 año y 2 meses", YEAR + 2 * MONTH),
        ("2 DÍAS", 2 * DAY),
        ("2 di\u0301as", 2 * DAY),  # the accent typed as its own character
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(1, MAX_DURATION))
def test_parse_reads_back_format_and_plain_seconds(seconds):
    assert parse_duration(format_duration(seconds)) == seconds
    assert parse_duration(str(seconds)) == seconds


WORKS = "90s, 3 turnos, 1h30, 1d12h, 2 semanas o 1 año"
UNITS = f"Usa s, t (turnos), m, h, d, w (semanas), mes o año: por ejemplo {WORKS}."


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", f"Escribe una duración, por ejemplo {WORKS}."),
        ("   ", f"Escribe una duración, por ejemplo {WORKS}."),
        ("0", "La duración debe ser mayor que cero."),
        ("0h 0m", "La duración debe ser mayor que cero."),
        ("-5", "La duración debe ser mayor que cero."),
        ("-1h", "La duración debe ser mayor que cero."),
        ("3x", f"Unidad desconocida «x». {UNITS}"),
        ("2 lunas", f"Unidad desconocida «lunas». {UNITS}"),
        ("2 Lunas", f"Unidad desconocida «Lunas». {UNITS}"),
        ("3 añitos", f"Unidad desconocida «añitos». {UNITS}"),  # echoed as typed, never «anitos»
        ("1d 12", f"Falta la unidad después de 12. Escribe algo como {WORKS}."),
        ("1w2", f"Falta la unidad después de 2. Escribe algo como {WORKS}."),
        ("2 3h", f"Falta la unidad después de 2. Escribe algo como {WORKS}."),
        ("1h30 2d", f"Falta la unidad después de 30. Escribe algo como {WORKS}."),
        ("abc", f"No se entiende la duración «abc». Escribe algo como {WORKS}."),
        ("años", f"No se entiende la duración «años». Escribe algo como {WORKS}."),
        ("y 2h", f"No se entiende la duración «y 2h». Escribe algo como {WORKS}."),
        ("1.5h", f"No se entiende la duración «1.5h». Escribe algo como {WORKS}."),
        ("h", f"No se entiende la duración «h». Escribe algo como {WORKS}."),
        ("1h+2h", f"No se entiende la duración «1h+2h». Escribe algo como {WORKS}."),
        ("52200w", "La duración es demasiado larga: como mucho 1000 años."),
        ("1001 años", "La duración es demasiado larga: como mucho 1000 años."),
        (str(MAX_DURATION + 1), "La duración es demasiado larga: como mucho 1000 años."),
        ("9" * 30 + "s", "La duración es demasiado larga: como mucho 1000 años."),
        ("1h " * 40, "La duración es demasiado larga para leerla."),
    ],
)
def test_parse_duration_refuses_with_a_clear_message(text, message):
    """Each refusal says what was typed, as typed, and durations that work."""
    with pytest.raises(ValueError) as error:
        parse_duration(text)
    assert str(error.value) == message


def test_parse_duration_accepts_exactly_the_cap():
    assert parse_duration(str(MAX_DURATION)) == MAX_DURATION


def test_parse_duration_refuses_what_is_not_text():
    with pytest.raises(ValueError):
        parse_duration(None)


@pytest.mark.parametrize("text", ["²", "2²h", "８h", "①d", "1h ²"])
def test_parse_duration_refuses_digits_that_are_not_ascii(text):
    # docs/rules.md §7.11: numbers are ASCII digits only; a superscript or full-width digit is not read as one.
    with pytest.raises(ValueError, match="No se entiende"):
        parse_duration(text)


def test_parse_duration_still_reads_accented_units():
    assert parse_duration("2 días") == 2 * 86400


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_examples_a_refusal_gives_work(language):
    with translation.override(language):
        examples = str(EXAMPLES)
        assert "1h30" in examples
        last = examples.rsplit(" o " if language == "es" else " or ", 1)
        for example in [*last[0].split(", "), last[1]]:
            assert parse_duration(example) > 0, example


def test_english_durations_read_back():
    with translation.override("en"):
        for seconds in (YEAR + 2 * MONTH + WEEK + DAY + HOUR + MINUTE + 1, 2 * YEAR, 3 * MONTH):
            assert parse_duration(format_duration(seconds)) == seconds
        with pytest.raises(ValueError, match="“lunas”"):
            parse_duration("2 lunas")
