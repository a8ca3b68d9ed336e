"""Rolling dice: a server roll, a die typed in by the GM, and damage in dice notation (docs/rules.md §§2-3).

`rules.engine` never rolls; it takes every die result as an argument. This module is where those results come from.
Every server roll uses `secrets`, so players cannot predict or steer the dice from earlier results.

Damage notation is parsed by `d20`, but only after our own checks: the text a GM types goes into a web form, so an
expression like `1000000d1000000` must be refused before any parsing or rolling happens.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import d20
from d20 import diceast
from django.utils.translation import gettext as _

from rules.engine import LIMITS

MAX_DICE = 100  # dice in one damage expression, all groups together
MAX_SIDES = 1000  # sides of one die
MAX_EXPRESSION_LENGTH = 50
# Plain damage and modifiers. Far above any character's PG (at most 300), yet it keeps every total well inside a
# database integer column.
MAX_NUMBER = 10_000

# Only dice, whole numbers, + and -, parentheses and spaces. Everything else d20 understands (keep/drop, rerolls,
# exploding dice, comparisons, annotations, comments, decimals, * and /) is refused: damage needs none of it, and the
# reroll operators would roll with d20's own `random` instead of our secure source.
_ALLOWED = re.compile(r"[0-9d+\-() \t]+")
_PLAIN_NUMBER = re.compile(r"[0-9]+")
_DICE_GROUP = re.compile(r"([0-9]*)d([0-9]*)")
_NUMBER = re.compile(r"[0-9]+")


class DiceError(ValueError):
    """A die or a damage expression the GM cannot use; the message is ready to show them as it is."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        # The message may be a lazy translation; str() turns it into text in the active language.
        return str(self.message)


def roll(sides: int) -> int:
    """One N-sided die rolled by the server: a whole number from 1 to `sides`."""
    if isinstance(sides, bool) or not isinstance(sides, int) or sides < 1:
        raise DiceError(_("Un dado debe tener al menos una cara."))
    return secrets.randbelow(sides) + 1


def die_or_roll(sides: int, typed: int | None) -> int:
    """The die of a check: the GM's typed result when the table rolled real dice, otherwise a server roll."""
    if typed is None:
        return roll(sides)
    # bool is an int subclass; a checkbox value arriving here as a die result is a bug, not a 1.
    if isinstance(typed, bool) or not isinstance(typed, int) or not 1 <= typed <= sides:
        raise DiceError(_("El dado debe estar entre 1 y %(sides)s.") % {"sides": sides})
    return typed


@dataclass(frozen=True)
class DamageRoll:
    """The outcome of a damage expression, kept whole so the campaign log can show how the total came about."""

    expression: str
    total: int
    detail: str  # each die as rolled, e.g. "2d6 (3, 5) + 1 = 9"

    @property
    def amount(self) -> int:
        """The PG lost: a negative total (1d4-3 rolling a 1) counts as 0 (docs/rules.md §2)."""
        return max(self.total, 0)


def roll_damage(expression: str) -> DamageRoll:
    """Damage typed by the GM: a whole number ≥ 0 ("7") or dice notation ("2d6+1", "d8", "1d12 - 2")."""
    text = _checked_text(expression)
    if _PLAIN_NUMBER.fullmatch(text):
        # Leading zeros are harmless ("07" is 7); the stored expression keeps what the GM typed.
        value, largest = int(text), LIMITS["amount"][1]
        if value > largest:  # the largest attack, as for dice (docs/rules.md §7.11)
            raise DiceError(_("El daño puede llegar como mucho a %(max)s.") % {"max": largest})
        return DamageRoll(expression=text, total=value, detail=str(value))
    _check_limits(text)
    _check_largest_total(text)
    try:
        result = _SecureRoller().roll(text, stringifier=d20.SimpleStringifier(), allow_comments=False)
    except d20.TooManyRolls as error:
        raise DiceError(_("Demasiados dados: como mucho %(max)s por tirada.") % {"max": MAX_DICE}) from error
    except d20.RollSyntaxError as error:
        message = _("No se entiende la tirada «%(expression)s». Usa algo como 2d6+1.") % {"expression": text}
        raise DiceError(message) from error
    except d20.RollError as error:  # RollValueError (a 0-sided die) and anything d20 adds later
        raise DiceError(_("La tirada «%(expression)s» no es válida.") % {"expression": text}) from error
    return DamageRoll(expression=text, total=result.total, detail=result.result)


def _checked_text(expression: str) -> str:
    if not isinstance(expression, str) or not expression.strip():
        raise DiceError(_("Escribe el daño: un número entero o una tirada como 2d6+1."))
    # Checked before anything else looks at it, so a huge paste costs nothing.
    if len(expression) > MAX_EXPRESSION_LENGTH:
        raise DiceError(
            _("La tirada es demasiado larga: como mucho %(max)s caracteres.") % {"max": MAX_EXPRESSION_LENGTH}
        )
    text = expression.strip().lower()  # "2D6" is as clear as "2d6"; d20 only knows the lower case
    if not _ALLOWED.fullmatch(text):
        raise DiceError(_("La tirada solo puede tener dados (2d6), números enteros, +, - y paréntesis."))
    if text.startswith("-"):
        raise DiceError(_("El daño no puede ser negativo."))
    return text


def _check_limits(text: str) -> None:
    groups = _DICE_GROUP.findall(text)
    if not groups:
        # "3+4" or "(-3)": neither a plain number nor dice, so probably a typo; ask for one of the two.
        raise DiceError(_("Escribe un número entero (7) o una tirada con dados (2d6+1)."))
    total_dice = 0
    for count_text, sides_text in groups:
        count = int(count_text) if count_text else 1  # "d8" is one die
        if not sides_text:
            raise DiceError(_("Falta el número de caras del dado, como en 2d6."))
        sides = int(sides_text)
        if count < 1:
            raise DiceError(_("Hay que tirar al menos un dado."))
        if sides < 1:
            raise DiceError(_("Un dado debe tener al menos una cara."))
        if sides > MAX_SIDES:
            raise DiceError(_("Un dado puede tener como mucho %(max)s caras.") % {"max": MAX_SIDES})
        total_dice += count
        if total_dice > MAX_DICE:
            raise DiceError(_("Demasiados dados: como mucho %(max)s por tirada.") % {"max": MAX_DICE})
    for number in _NUMBER.findall(text):
        if int(number) > MAX_NUMBER:
            raise DiceError(_("Los números de la tirada pueden llegar como mucho a %(max)s.") % {"max": MAX_NUMBER})


def _check_largest_total(text: str) -> None:
    """docs/rules.md §7.11: an expression that could total more than the largest attack is refused before rolling."""
    try:
        _lowest, highest = _bounds(d20.parse(text, allow_comments=False))
    except d20.RollSyntaxError as error:
        message = _("No se entiende la tirada «%(expression)s». Usa algo como 2d6+1.") % {"expression": text}
        raise DiceError(message) from error
    largest = LIMITS["amount"][1]
    if highest > largest:
        raise DiceError(
            _("La tirada «%(expression)s» puede sumar %(total)s; el daño llega como mucho a %(max)s.")
            % {"expression": text, "total": highest, "max": largest}
        )


def _bounds(node: diceast.Node) -> tuple[int, int]:
    """The lowest and the highest total an expression of dice, numbers, + and - can make."""
    match node:
        case diceast.Expression():
            return _bounds(node.roll)
        case diceast.Parenthetical():
            return _bounds(node.value)
        case diceast.Literal():
            return int(node.value), int(node.value)
        case diceast.Dice():
            return int(node.num), int(node.num) * int(node.size)
        case diceast.UnOp():
            low, high = _bounds(node.value)
            return (-high, -low) if node.op == "-" else (low, high)
        case diceast.BinOp():
            (left_low, left_high), (right_low, right_high) = _bounds(node.left), _bounds(node.right)
            if node.op == "-":
                return left_low - right_high, left_high - right_low
            return left_low + right_low, left_high + right_high
    # Anything else was refused by the character check before parsing; count it as unbounded to be safe.
    raise DiceError(_("La tirada solo puede tener dados (2d6), números enteros, +, - y paréntesis."))


class _SecureRoller(d20.Roller):
    """A d20 roller whose dice come from `secrets`.

    d20 rolls with the module-level `random` and offers no way to pass another source. Rather than replace d20's
    `random` for the whole process, this roller builds each dice group itself from secure rolls; d20 still parses,
    adds up and prints. A new roller per damage roll, because d20's roll counter lives on the roller and requests may
    roll at the same time in different threads.
    """

    def __init__(self) -> None:
        # d20's own guard, in case our limits above ever let too many dice through.
        super().__init__(context=d20.RollContext(max_rolls=MAX_DICE))

    def _eval_dice(self, node: diceast.Dice) -> d20.Dice:
        size = node.size
        if size == "%" or size < 1:
            raise d20.RollValueError("Cannot roll a die with fewer than one side.")
        self.context.count_roll(node.num)
        dice = [d20.Die(size, [d20.Literal(roll(size))], context=self.context) for _ in range(node.num)]
        return d20.Dice(node.num, size, dice, context=self.context)

    def _eval_operatedset(self, node: diceast.OperatedSet) -> d20.Number:
        # Rerolls and exploding dice would roll through d20's `random`; our character check already keeps them out.
        raise d20.RollValueError("Dice operators are not supported.")
