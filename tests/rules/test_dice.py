"""Dice: server rolls, dice typed in by the GM, and damage in dice notation (docs/rules.md §§2-3). No database."""

import d20
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import dice
from rules.dice import MAX_DICE, MAX_SIDES, DamageRoll, DiceError, die_or_roll, roll, roll_damage
from tests.examples import examples

quick = settings(max_examples=examples(200), deadline=None)


# --- roll / die_or_roll -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sides", [1, 6, 12, 20])
def test_roll_stays_on_the_die_and_shows_every_face(sides):
    results = [roll(sides) for _ in range(100 * sides)]
    assert all(1 <= r <= sides for r in results)
    # Missing a face in 100 tries per face has a probability far below 1e-30.
    assert set(results) == set(range(1, sides + 1))


@pytest.mark.parametrize("sides", [0, -1, True, 1.5, "6"])
def test_roll_refuses_a_die_without_faces(sides):
    with pytest.raises(DiceError):
        roll(sides)


def test_roll_uses_secrets(monkeypatch):
    monkeypatch.setattr(dice.secrets, "randbelow", lambda n: n - 1)
    assert roll(12) == 12


@quick
@given(st.integers(1, 1000), st.data())
def test_typed_die_in_range_is_taken_as_is(sides, data):
    typed = data.draw(st.integers(1, sides))
    assert die_or_roll(sides, typed) == typed


@quick
@given(st.integers(1, 1000), st.integers(-10_000, 10_000))
def test_typed_die_out_of_range_is_refused(sides, typed):
    if 1 <= typed <= sides:
        assert die_or_roll(sides, typed) == typed
    else:
        with pytest.raises(DiceError) as error:
            die_or_roll(sides, typed)
        assert str(error.value) == f"El dado debe estar entre 1 y {sides}."


@pytest.mark.parametrize("typed", [True, False, 3.0, "3"])
def test_typed_die_must_be_a_whole_number(typed):
    with pytest.raises(DiceError):
        die_or_roll(12, typed)


@quick
@given(st.integers(1, 100))
def test_untyped_die_is_rolled(sides):
    assert die_or_roll(sides, None) in range(1, sides + 1)


def test_dice_error_is_a_value_error_with_a_message():
    error = DiceError("mensaje")
    assert isinstance(error, ValueError)
    assert str(error) == "mensaje"


# --- roll_damage: what it accepts ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "value"), [("7", 7), ("0", 0), (" 12 ", 12), ("07", 7), ("1000", 1000)])
def test_plain_numbers_are_the_damage(text, value):
    result = roll_damage(text)
    assert result == DamageRoll(expression=text.strip(), total=value, detail=str(value))
    assert result.amount == value


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("2d6+1", 3, 13),
        ("1d12-2", -1, 10),
        ("d8", 1, 8),
        ("3d6 + 2", 5, 20),
        ("2D6", 2, 12),
        ("(1d6)+(2d4)", 3, 14),
        ("1d6 - -3", 4, 9),
        ("100d6", 100, 600),
        ("50d6 + 50d6", 100, 600),
        ("1d1000", 1, 1000),
    ],
)
def test_notation_totals_stay_within_bounds(text, low, high):
    for _ in range(200):
        result = roll_damage(text)
        assert low <= result.total <= high
        assert result.amount == max(result.total, 0)
        assert result.detail.endswith(f"= {result.total}")


def test_detail_shows_each_die():
    result = roll_damage("2d6+1")
    assert result.expression == "2d6+1"
    assert result.detail.startswith("2d6 (")
    assert " + 1 = " in result.detail


def test_negative_total_counts_as_zero():
    for _ in range(50):
        result = roll_damage("1d4-10")
        assert -9 <= result.total <= -6
        assert result.amount == 0
    assert DamageRoll("1d4-3", -2, "1d4 (1) - 3 = -2").amount == 0


def test_damage_dice_come_from_secrets_not_random(monkeypatch):
    def no_random(*args, **kwargs):
        raise AssertionError("d20 rolled with the random module")

    monkeypatch.setattr(d20.expression.random, "randrange", no_random)
    monkeypatch.setattr(dice.secrets, "randbelow", lambda n: n - 1)  # every die shows its highest face
    result = roll_damage("2d6+1")
    assert result.total == 13
    assert result.detail == "2d6 (6, 6) + 1 = 13"


def test_a_fifty_character_expression_is_accepted():
    text = "1d6+" * 12 + "10"
    assert len(text) == 50
    assert 22 <= roll_damage(text).total <= 82


# --- roll_damage: what it refuses ---------------------------------------------------------------------------------


REFUSED = [
    "",
    "   ",
    "-3",
    "- 3",
    "-1d4",
    "abc",
    "2d6; import os",
    "1d0",
    "0d6",
    "dd6",
    "d",
    "1d",
    "1d6+",
    "1d6)",
    "(1d6",
    "1d6 1",
    "3+4",
    "(-3)",
    "101d6",
    "51d6+50d6",
    "1d1001",
    "1000000d1000000",
    "1d6+" * 12 + "100",  # 51 characters
    "1d6" + " " * 57,  # 60 characters, even if mostly spaces
    "4d6kh3",
    "1d6e6",
    "1d20rr1",
    "1d%",
    "2d6*2",
    "2d6/2",
    "1.5",
    "1d6 [fuego]",
    "1d6 > 3",
    "(1d6, 1d8)",
    "1001",  # the largest attack is 1000 PG (docs/rules.md §7.11), typed as a number or as dice
    "10000",
    "0000000000000000005000",  # past the 18 digits a form reads as a number, so sent here as an expression
    "10001",
    "1d6+10001",
    "99999999999999999999999999",
]


# How each of our own messages (rules/dice.py) begins: none of d20's English may reach the GM.
OUR_MESSAGES = (
    "Escribe el daño",
    "Escribe un número entero",
    "La tirada es demasiado larga",
    "La tirada solo puede tener",
    "La tirada «",
    "El daño no puede ser negativo",
    "El daño puede llegar como mucho",
    "No se entiende la tirada «",
    "Falta el número de caras",
    "Hay que tirar al menos un dado",
    "Un dado debe tener al menos una cara",
    "Un dado puede tener como mucho",
    "Demasiados dados",
    "Los números de la tirada",
)


@pytest.mark.parametrize("text", REFUSED)
def test_bad_damage_is_refused_with_a_message(text):
    with pytest.raises(DiceError) as error:
        roll_damage(text)
    message = str(error.value)
    assert message.startswith(OUR_MESSAGES) and message.endswith("."), message


@pytest.mark.parametrize("text", ["1000000d1000000", "101d6", "1d1001", "x" * 10_000])
def test_limits_are_checked_before_anything_is_rolled(monkeypatch, text):
    def no_rolling(*args, **kwargs):
        raise AssertionError("rolled although the expression breaks the limits")

    monkeypatch.setattr(dice._SecureRoller, "roll", no_rolling)
    with pytest.raises(DiceError):
        roll_damage(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "Escribe el daño: un número entero o una tirada como 2d6+1."),
        ("-3", "El daño no puede ser negativo."),
        ("101d6", f"Demasiados dados: como mucho {MAX_DICE} por tirada."),
        ("1000000d1000000", f"Un dado puede tener como mucho {MAX_SIDES} caras."),
        ("1d0", "Un dado debe tener al menos una cara."),
        ("1d6+", "No se entiende la tirada «1d6+». Usa algo como 2d6+1."),
        ("a" * 60, "La tirada es demasiado larga: como mucho 50 caracteres."),
    ],
)
def test_messages_are_in_spanish(text, message):
    with pytest.raises(DiceError) as error:
        roll_damage(text)
    assert str(error.value) == message


def test_d20_guard_backs_up_our_limit(monkeypatch):
    # Were our own count ever wrong, d20's roll counter still stops at MAX_DICE and the error is ours.
    monkeypatch.setattr(dice, "_check_limits", lambda text: None)
    with pytest.raises(DiceError) as error:
        roll_damage("101d6")
    assert str(error.value) == f"Demasiados dados: como mucho {MAX_DICE} por tirada."


def test_d20_value_errors_become_dice_errors(monkeypatch):
    monkeypatch.setattr(dice, "_check_limits", lambda text: None)
    with pytest.raises(DiceError) as error:
        roll_damage("1d0")
    assert str(error.value) == "La tirada «1d0» no es válida."
