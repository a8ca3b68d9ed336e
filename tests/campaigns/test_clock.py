"""Campaign time for people: the clock, durations, and durations typed by the GM. No database."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.clock import DAY, HOUR, MAX_DURATION, MINUTE, TURN, WEEK, format_clock, format_duration, parse_duration


def test_units():
    assert (TURN, MINUTE, HOUR, DAY, WEEK) == (6, 60, 3600, 86_400, 604_800)


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
    ],
)
def test_format_duration(seconds, text):
    assert format_duration(seconds) == text


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
    ],
)
def test_parse_duration(text, seconds):
    assert parse_duration(text) == seconds


@settings(max_examples=300, deadline=None)
@given(st.integers(1, MAX_DURATION))
def test_parse_reads_back_format_and_plain_seconds(seconds):
    assert parse_duration(format_duration(seconds)) == seconds
    assert parse_duration(str(seconds)) == seconds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Escribe una duración, por ejemplo 8h, 1d12h o 3 turnos."),
        ("   ", "Escribe una duración, por ejemplo 8h, 1d12h o 3 turnos."),
        ("0", "La duración debe ser mayor que cero."),
        ("0h 0m", "La duración debe ser mayor que cero."),
        ("-5", "La duración debe ser mayor que cero."),
        ("-1h", "La duración debe ser mayor que cero."),
        ("3x", "Unidad desconocida «x». Usa s, t (turnos), m, h, d o w (semanas)."),
        ("2 lunas", "Unidad desconocida «lunas». Usa s, t (turnos), m, h, d o w (semanas)."),
        ("1h 30", "Falta la unidad después de 30 (s, t, m, h, d o w)."),
        ("abc", "No se entiende la duración «abc». Escribe algo como 8h, 1d12h o 3 turnos."),
        ("1.5h", "No se entiende la duración «1.5h». Escribe algo como 8h, 1d12h o 3 turnos."),
        ("h", "No se entiende la duración «h». Escribe algo como 8h, 1d12h o 3 turnos."),
        ("1h+2h", "No se entiende la duración «1h+2h». Escribe algo como 8h, 1d12h o 3 turnos."),
        ("52200w", "La duración es demasiado larga: como mucho 1000 años."),
        (str(MAX_DURATION + 1), "La duración es demasiado larga: como mucho 1000 años."),
        ("9" * 30 + "s", "La duración es demasiado larga: como mucho 1000 años."),
        ("1h " * 40, "La duración es demasiado larga para leerla."),
    ],
)
def test_parse_duration_refuses_with_a_clear_message(text, message):
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
    # RULES.md 7.11: numbers are ASCII digits only; a superscript or full-width digit is not read as one.
    with pytest.raises(ValueError, match="No se entiende"):
        parse_duration(text)


def test_parse_duration_still_reads_accented_units():
    assert parse_duration("2 días") == 2 * 86400
