"""The Sistema 12Plus rules for wounds, recovery, illness and death, as pure functions.

`docs/rules.md` is the specification; this module follows it line by line. No Django, no I/O, no randomness: every die
result comes in as an argument, and every function returns new frozen values instead of changing its arguments.

Campaign time is whole seconds. `advance` jumps from one change to the next (a recovered PG, a weekly illness loss),
so its cost depends on how much happens, not on how long the advance is, and advancing by `a` then `b` gives exactly
the state that advancing by `a + b` gives.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

KINDS = ("attack", "collision", "fall", "drowning", "gas", "illness", "exertion")
# Only these recover while the character rests; drowning and gas recover just by breathing (docs/rules.md §6).
REST_ONLY = frozenset({"attack", "collision", "fall", "illness", "exertion"})
CATEGORIES = ("common", "serious")

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
WEEK = 7 * DAY
MONTH = 30 * DAY  # docs/rules.md §7.14: the calendar a GM types in; the seed names none
YEAR = 365 * DAY

CON_MIN, CON_MAX = 1, 30
SKILL_MIN, SKILL_MAX = 0, 30

# docs/rules.md §7.11: the numbers a GM may type, as (lowest, highest); forms, actions and the database read them.
LIMITS: dict[str, tuple[int, int]] = {
    "amount": (0, 1000),  # attack damage, typed or the largest total of a dice expression
    "speed_kmh": (0, 2000),
    "weight_kg": (1, 500),
    "height_m": (0, 10000),
    "turns": (0, 1000),
    "difficulty": (1, 60),
    "advance": (1, 1000 * YEAR),  # seconds of one advance of the clock
}

EXERTION_DIFFICULTY = 12
EXERTION_DIE = 12
RESISTANCE_DIE = 12
RESISTANCE_DIFFICULTY = {"common": 8, "serious": 12}
FALL_DIE = 20
DEFAULT_FALL_DIFFICULTY = 12

# Seconds per PG recovered, untreated. Every value is even, so the treated (halved) interval is exact.
_INTERVALS = {
    "attack": DAY,
    "collision": 2 * DAY,
    "fall": 2 * DAY,
    "drowning": MINUTE,
    "gas": HOUR,
    "illness": DAY,
    "exertion": DAY,
}

Roll = Literal["physical", "other"]
# Which penalties each check takes (docs/rules.md §3): the fall check is a physical roll, the others are not.
CHECK_ROLLS: dict[str, Roll] = {"fall": "physical", "resistance": "other", "exertion": "other"}


# --- input checks -------------------------------------------------------------------------------------------------


def _whole(name: str, value: object, minimum: int | None = 0, maximum: int | None = None) -> int:
    # bool is an int subclass; a True slipping in as "1 PG" is always a bug upstream.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, not {value}")
    return value


def _measure(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, not {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number ≥ 0, not {value}")
    return value


def _kind(kind: object) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown wound kind {kind!r}; expected one of {', '.join(KINDS)}")
    return str(kind)


def _category(category: object) -> str:
    if category not in CATEGORIES:
        raise ValueError(f"unknown illness category {category!r}; expected 'common' or 'serious'")
    return str(category)


def _constitution(constitution: object) -> int:
    return _whole("constitution", constitution, CON_MIN, CON_MAX)


# --- tables and formulas ------------------------------------------------------------------------------------------


def max_pg(constitution: int) -> int:
    return 10 * _constitution(constitution)


def collision_damage(speed_kmh: float, weight_kg: float) -> int:
    return math.floor(_measure("speed_kmh", speed_kmh) / 10) + math.floor(_measure("weight_kg", weight_kg) / 10)


def fall_damage(height_m: float, weight_kg: float) -> int:
    """PG lost on a *failed* fall check."""
    return math.floor(_measure("height_m", height_m)) + math.floor(_measure("weight_kg", weight_kg) / 10)


def drowning_damage(turns: int) -> int:
    return 2 * _whole("turns", turns)


def gas_damage(turns: int) -> int:
    return 1 * _whole("turns", turns)


@dataclass(frozen=True)
class Penalties:
    physical: int = 0
    other: int = 0
    exertion: bool = False
    dead: bool = False

    def for_roll(self, roll: Roll) -> int:
        return self.physical if roll == "physical" else self.other


# (lowest PG of the band, physical, other, exertion check), highest band first; 0 PG is death (docs/rules.md §4).
_PENALTY_BANDS = (
    (11, 0, 0, False),
    (9, -2, 0, False),
    (7, -2, -2, False),
    (5, -4, -2, False),
    (3, -4, -4, True),
    (1, -6, -6, True),
)


def penalties(pg: int) -> Penalties:
    _whole("pg", pg)
    for lowest, physical, other, exertion in _PENALTY_BANDS:
        if pg >= lowest:
            return Penalties(physical, other, exertion)
    # A dead character makes no rolls, so no penalty numbers apply.
    return Penalties(dead=True)


def penalty_row(pg: int) -> int | None:
    """The row of docs/rules.md §4's table that applies at `pg`: 10, 8, 6, 4 or 2; None when unhurt enough for none
    (11 PG or more) and 0 when dead."""
    _whole("pg", pg)
    if pg == 0:
        return 0
    if pg >= _PENALTY_BANDS[0][0]:
        return None
    return next(lowest + 1 for lowest, *_rest in _PENALTY_BANDS if pg >= lowest)


# The one word a character's condition is said in, by its row of the penalty table (penalty_row; None is the row
# without penalties, 11 PG or more); the words themselves, in each language, are rules.explained.CONDITIONS.
CONDITION_OF_ROW = {None: "hurt", 10: "badly-hurt", 8: "badly-hurt", 6: "grave", 4: "grave", 2: "dying", 0: "dead"}


def condition_of(health: Health) -> str:
    """The key of the word for a character's health: "unhurt" at full PG whatever the CON, "dead" when dead, else
    its row's (CONDITION_OF_ROW)."""
    if health.dead:
        return "dead"
    if health.pg == health.max_pg:
        return "unhurt"
    return CONDITION_OF_ROW[penalty_row(health.pg)]


def check(die: int, modifier: int, difficulty: int) -> bool:
    return _whole("die", die, None) + _whole("modifier", modifier, None) >= _whole("difficulty", difficulty, None)


def recovery_interval(kind: str, treated: bool = False) -> int:
    """Seconds of campaign time per PG recovered; a wound treated with Curar Heridas takes half."""
    interval = _INTERVALS[_kind(kind)]
    return interval // 2 if treated else interval


# --- state --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Wound:
    """One loss of PG. `amount` is what is still outstanding; it drops as the wound recovers and stays at 0 after."""

    kind: str
    amount: int
    treated: bool = False
    inflicted_at: int = 0
    illness_key: str | None = None  # for kind "illness": the identity of the Illness that caused it

    def __post_init__(self) -> None:
        _kind(self.kind)
        _whole("amount", self.amount)
        _whole("inflicted_at", self.inflicted_at)


@dataclass(frozen=True)
class Illness:
    """One episode of a disease. Cured episodes stay in the list as history."""

    category: str
    penalty: int
    pg_per_week: int = 0
    treated: bool = False  # by another character with Curar Heridas
    medicated: bool = False
    since: int = 0  # campaign second the character fell ill
    name: str = ""
    key: str | None = None  # the disease's identity; episodes of one disease share it
    cured_at: int | None = None
    weeks_charged: int = 0  # weekly losses already applied

    def __post_init__(self) -> None:
        _category(self.category)
        _whole("penalty", self.penalty, None, 0)
        if self.category == "serious":
            _whole("pg_per_week", self.pg_per_week, 1)
        elif _whole("pg_per_week", self.pg_per_week) != 0:
            raise ValueError("a common illness loses no PG per week")
        _whole("since", self.since)
        _whole("weeks_charged", self.weeks_charged)
        if self.cured_at is not None:
            _whole("cured_at", self.cured_at)

    @property
    def identity(self) -> str:
        return self.key if self.key is not None else self.name

    @property
    def cured(self) -> bool:
        if self.category == "common":
            return self.treated or self.medicated
        return self.treated and self.medicated

    @property
    def next_loss_at(self) -> int | None:
        """When the next weekly loss falls due, or None if this illness costs no more PG."""
        if self.category != "serious" or self.cured:
            return None
        return self.since + (self.weeks_charged + 1) * WEEK


def _progress_pairs(progress: Mapping[str, int] | Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    # One canonical form (KINDS order, no zero entries) so that equal states compare equal.
    values = dict(progress.items() if isinstance(progress, Mapping) else progress)
    for kind, seconds in values.items():
        _kind(kind)
        _whole(f"progress of {kind}", seconds)
    return tuple((kind, values[kind]) for kind in KINDS if values.get(kind))


@dataclass(frozen=True)
class Health:
    """A character's health at campaign second `now`.

    Wounds and illnesses are history as well as state: nothing here ever removes or reorders them, and new ones are
    only appended, so a caller can match them to stored rows by position.
    """

    constitution: int
    wounds: tuple[Wound, ...] = ()
    illnesses: tuple[Illness, ...] = ()
    now: int = 0
    died_at: int | None = None
    # Seconds already accrued toward the next PG of each kind's pool, per kind (zeros left out).
    progress: tuple[tuple[str, int], ...] = ()
    # (category, campaign day) pairs on which a resistance check succeeded.
    protection: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        _constitution(self.constitution)
        # Lists are accepted for convenience and frozen here, so the state stays immutable and hashable.
        object.__setattr__(self, "wounds", tuple(self.wounds))
        object.__setattr__(self, "illnesses", tuple(self.illnesses))
        object.__setattr__(self, "progress", _progress_pairs(self.progress))
        object.__setattr__(self, "protection", tuple(sorted(set(self.protection))))
        for wound in self.wounds:
            if not isinstance(wound, Wound):
                raise ValueError(f"not a Wound: {wound!r}")
        for illness in self.illnesses:
            if not isinstance(illness, Illness):
                raise ValueError(f"not an Illness: {illness!r}")
        for category, day in self.protection:
            _category(category)
            _whole("protection day", day)
        _whole("now", self.now)
        if self.died_at is not None:
            _whole("died_at", self.died_at)

    # The state is frozen: its PG is worked out once (a card asks for it a dozen times).
    @cached_property
    def max_pg(self) -> int:
        return max_pg(self.constitution)

    @cached_property
    def damage(self) -> int:
        return sum(wound.amount for wound in self.wounds)

    @cached_property
    def pg(self) -> int:
        # docs/rules.md §4, "dead means PG 0, always": a raised CON does not bring the dead back.
        if self.died_at is not None:
            return 0
        return min(max(self.max_pg - self.damage, 0), self.max_pg)

    @property
    def dead(self) -> bool:
        return self.died_at is not None or self.pg == 0

    @property
    def day(self) -> int:
        return self.now // DAY

    @property
    def sick(self) -> tuple[Illness, ...]:
        """The illnesses not yet cured."""
        return tuple(illness for illness in self.illnesses if not illness.cured)

    @property
    def penalties(self) -> Penalties:
        base = penalties(self.pg)
        illness = sum(illness.penalty for illness in self.sick)
        return replace(base, physical=base.physical + illness, other=base.other + illness)

    def progress_of(self, kind: str) -> int:
        return dict(self.progress).get(_kind(kind), 0)

    def is_protected(self, category: str) -> bool:
        return (_category(category), self.day) in self.protection


def penalty_parts(health: Health, roll: Roll) -> tuple[tuple[str, int], ...]:
    """Every penalty on a roll, labelled for the log: ("pg", n) for low PG, ("illness:<name>", n) per illness."""
    parts: list[tuple[str, int]] = []
    low_pg = penalties(health.pg).for_roll(roll)
    if low_pg:
        parts.append(("pg", low_pg))
    for illness in health.sick:
        if illness.penalty:
            parts.append((f"illness:{illness.name or illness.identity}", illness.penalty))
    return tuple(parts)


# --- recovery pools -----------------------------------------------------------------------------------------------


def _blocked(wound: Wound, illnesses: Iterable[Illness]) -> bool:
    # An illness wound waits for its own episode's cure. Its episode is the one of that disease that began before the
    # wound; a later episode of the same disease (caught again after a cure) does not hold back the old wounds.
    if wound.kind != "illness":
        return False
    return any(
        not illness.cured and illness.identity == wound.illness_key and illness.since < wound.inflicted_at
        for illness in illnesses
    )


def _pool(wounds: list[Wound] | tuple[Wound, ...], illnesses: Iterable[Illness], kind: str) -> list[int]:
    """Indexes of the wounds of one kind that can recover now, oldest first (ties keep list order)."""
    illnesses = tuple(illnesses)
    members = [
        index
        for index, wound in enumerate(wounds)
        if wound.kind == kind and wound.amount > 0 and not _blocked(wound, illnesses)
    ]
    return sorted(members, key=lambda index: (wounds[index].inflicted_at, index))


def _head(health: Health, kind: str) -> Wound | None:
    pool = _pool(health.wounds, health.illnesses, kind)
    return health.wounds[pool[0]] if pool else None


# A recorder of the wounds paid off inside an advance: (wound index, campaign second it reached 0), as they happen.
type Healed = list[tuple[int, int]]


def _drain(
    wounds: list[Wound],
    pool: list[int],
    kind: str,
    progress: int,
    available: int,
    until: int,
    strict: bool,
    healed: Healed | None,
) -> int:
    """Let `available` seconds of recovery, ending at campaign second `until`, pass over one pool; return the new
    progress.

    Updates `wounds` in place and drops the wounds it pays off from the front of `pool`, telling `healed` (if any)
    each one and the second it reached 0. With `strict`, a PG that would be recovered exactly at the end is held back
    with its progress full, because a loss due at that same instant comes first; the next call recovers it at once.
    """
    while pool:
        wound = wounds[pool[0]]
        step = recovery_interval(kind, wound.treated)
        need = max(step - progress, 0)
        if need > available or (strict and need == available):
            return progress + available
        available -= need
        amount = wound.amount - 1
        # Every further PG of this wound takes a whole step; work them out at once instead of one by one.
        whole_steps = (available - 1) // step if strict else available // step
        recovered = min(max(whole_steps, 0), amount)
        amount -= recovered
        available -= recovered * step
        wounds[pool[0]] = replace(wound, amount=amount)
        progress = 0
        if amount:
            return available
        if healed is not None:
            healed.append((pool[0], until - available))
        pool.pop(0)
    # The pool is empty: nothing carries over to wounds that come later.
    return 0


def _recover(
    wounds: list[Wound],
    pools: dict[str, list[int]],
    progress: dict[str, int],
    clock: int,
    until: int,
    resting: bool,
    strict: bool,
    healed: Healed | None,
) -> None:
    """Recovery from campaign second `clock` to `until`, every pool at once."""
    available = until - clock
    for kind, pool in pools.items():
        if resting or kind not in REST_ONLY:
            progress[kind] = _drain(wounds, pool, kind, progress.get(kind, 0), available, until, strict, healed)


def _charge_losses(wounds: list[Wound], illnesses: list[Illness], until: int) -> None:
    """Add the weekly wound of every serious illness whose loss is due at or before `until`."""
    for index, illness in enumerate(illnesses):
        while (due := illness.next_loss_at) is not None and due <= until:
            wounds.append(Wound("illness", illness.pg_per_week, inflicted_at=due, illness_key=illness.identity))
            illness = replace(illness, weeks_charged=illness.weeks_charged + 1)
        illnesses[index] = illness


def _pg_of(constitution: int, wounds: Iterable[Wound]) -> int:
    return max(max_pg(constitution) - sum(wound.amount for wound in wounds), 0)


def advance(health: Health, seconds: int, resting: bool = True) -> Health:
    """The state after `seconds` more campaign time; rest-only recovery counts only if `resting`."""
    return _advance(health, seconds, resting, None)


def _advance(health: Health, seconds: int, resting: bool, healed: Healed | None) -> Health:
    """`advance`, telling `healed` (if given) each wound paid off and the second it was (`_drain`)."""
    end = health.now + _whole("seconds", seconds)
    if health.died_at is not None:
        return replace(health, now=end)
    if health.pg == 0:
        # Only reachable for a state built by hand; the death belongs to the moment it is first seen.
        return replace(health, now=end, died_at=health.now, progress=())

    wounds = list(health.wounds)
    illnesses = list(health.illnesses)
    # Who can heal is settled once: inside an advance no illness gets cured, and the wounds an illness adds wait for
    # its cure, so the pools only lose wounds as they are paid off (and the kinds with nothing to heal have none).
    pools = {kind: pool for kind in KINDS if (pool := _pool(wounds, illnesses, kind))}
    progress = {kind: done for kind, done in health.progress if kind in pools}
    clock = health.now
    while True:
        due = min((at for illness in illnesses if (at := illness.next_loss_at) is not None), default=None)
        if due is None or due > end:
            _recover(wounds, pools, progress, clock, end, resting, False, healed)
            break
        due = max(due, clock)  # a loss overdue in a hand-built state is charged at once
        _recover(wounds, pools, progress, clock, due, resting, True, healed)
        clock = due
        _charge_losses(wounds, illnesses, clock)
        if _pg_of(health.constitution, wounds) == 0:
            return Health(
                health.constitution,
                tuple(wounds),
                tuple(illnesses),
                now=end,
                died_at=clock,
                protection=health.protection,
            )
    return replace(health, wounds=tuple(wounds), illnesses=tuple(illnesses), now=end, progress=tuple(progress.items()))


@dataclass(frozen=True)
class Preview:
    """What an advance will do, for the GM to read before committing it: `after` is exactly `advance`'s answer."""

    after: Health
    healed: tuple[tuple[int, int], ...]  # (wound index, campaign second it is fully recovered), in time order
    losses: tuple[Wound, ...]  # the weekly illness losses charged, each at its campaign second
    died_at: int | None  # the second of a death inside the advance


def preview(health: Health, seconds: int, resting: bool = True) -> Preview:
    """`advance`, and when each wound heals, each weekly loss falls and death comes inside it.

    It is the advance itself, run once with a recorder: the moment a wound is paid off is the one the recovery
    schedule reaches it at, so it costs what the advance does.
    """
    healed: Healed = []
    after = _advance(health, seconds, resting, healed)
    healed.sort(key=lambda pair: (pair[1], pair[0]))
    died_at = after.died_at if health.died_at is None else None
    return Preview(after, tuple(healed), after.wounds[len(health.wounds) :], died_at)


def _rebased(before: Health, after: Health) -> Health:
    """Keep each pool's progress meaningful after an action changed which wound heals next, or its treatment.

    The fraction of the interval already done is kept, rounded down, so it never reaches the new interval.
    """
    progress = {}
    for kind, seconds in before.progress:
        old_head, new_head = _head(before, kind), _head(after, kind)
        if old_head is not None and new_head is not None:
            old_step = recovery_interval(kind, old_head.treated)
            progress[kind] = min(seconds, old_step - 1) * recovery_interval(kind, new_head.treated) // old_step
    return replace(after, progress=tuple(progress.items()))


# --- actions ------------------------------------------------------------------------------------------------------


class Refused(ValueError):
    """The rules forbid this action. `reason` is one of REFUSALS, a stable code that callers may put in words."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


REFUSALS = ("dead", "exertion", "cured", "treated", "medicated")


def _alive(health: Health, action: str) -> None:
    if health.dead:
        raise Refused("dead", f"a dead character cannot {action}")


def apply_wound(health: Health, wound: Wound) -> Health:
    """Record a wound at the current campaign second; the character dies if PG reaches 0.

    The wound is recorded even for 0 PG or a character already dead (the record matters); a dead character's PG and
    time of death do not change.
    """
    if not isinstance(wound, Wound):
        raise ValueError(f"not a Wound: {wound!r}")
    after = replace(health, wounds=(*health.wounds, replace(wound, inflicted_at=health.now)))
    if health.died_at is not None:
        return after
    if after.pg == 0:
        return _died(after)
    return _rebased(health, after)


def _died(health: Health) -> Health:
    """PG reached 0: the character dies now, and its recovery progress goes (docs/rules.md §7.2)."""
    return replace(health, died_at=health.now, progress=())


def change_constitution(health: Health, constitution: int) -> Health:
    """A CON edit (docs/rules.md §7.9): max PG moves with it and the outstanding damage stays. If that brings PG to
    0 the character dies now; the dead stay dead, at 0 PG, whatever their new CON."""
    if health.died_at is None and health.pg == 0:
        health = _died(health)  # already at 0 PG with no death recorded: it died before this edit, not after
    after = replace(health, constitution=_constitution(constitution))
    if after.died_at is None and after.pg == 0:
        return _died(after)
    return after


@dataclass(frozen=True)
class CheckResult:
    """One check with all its parts, as the campaign log shows it."""

    die: int
    sides: int
    modifier: int  # the attribute or skill added to the die
    penalties: tuple[tuple[str, int], ...]
    total: int
    difficulty: int
    success: bool


def roll_check(
    die: int, sides: int, base: int, penalty_parts: Iterable[tuple[str, int]], difficulty: int
) -> CheckResult:
    _whole("sides", sides, 1)
    if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= sides:
        raise ValueError(f"a d{sides} shows 1 to {sides}, not {die!r}")
    parts = tuple(penalty_parts)
    for label, value in parts:
        _whole(f"penalty {label}", value, None, 0)
    modifier = _whole("modifier", base, None)
    total = die + modifier + sum(value for _, value in parts)
    return CheckResult(die, sides, modifier, parts, total, difficulty, check(total, 0, difficulty))


def exertion_check(health: Health, die: int) -> tuple[Health, CheckResult]:
    """1d12 + CON (an *other* roll) against 12; failure costs 1 PG of kind exertion.

    docs/rules.md §4: the check exists only while 1 ≤ PG ≤ 4; it is refused at 5 PG or more and for the dead.
    """
    _alive(health, "make an exertion check")
    if not health.penalties.exertion:
        raise Refused("exertion", f"no exertion check at {health.pg} PG: only while PG is 4 or less")
    result = roll_check(
        die, EXERTION_DIE, health.constitution, penalty_parts(health, CHECK_ROLLS["exertion"]), EXERTION_DIFFICULTY
    )
    if result.success:
        return health, result
    return apply_wound(health, Wound("exertion", 1)), result


def fall(
    health: Health,
    height_m: float,
    weight_kg: float,
    die: int,
    jump_skill: int,
    difficulty: int = DEFAULT_FALL_DIFFICULTY,
) -> tuple[Health, CheckResult]:
    """1d20 + Saltar (a *physical* roll) against the GM's difficulty; failure costs fall_damage, even 0 PG."""
    _alive(health, "fall")
    damage = fall_damage(height_m, weight_kg)
    skill = _whole("jump skill", jump_skill, SKILL_MIN, SKILL_MAX)
    result = roll_check(
        die, FALL_DIE, skill, penalty_parts(health, CHECK_ROLLS["fall"]), _whole("difficulty", difficulty)
    )
    if result.success:
        return health, result
    return apply_wound(health, Wound("fall", damage)), result


def _ill_with(health: Health, illness: Illness) -> bool:
    return any(current.identity == illness.identity for current in health.sick)


def expose(health: Health, illness: Illness, die: int | None) -> tuple[Health, CheckResult | None]:
    """Expose the character to a disease: 1d12 + CON (an *other* roll) against 8 (common) or 12 (serious).

    A success protects against that whole category for the rest of the campaign day, so a protected character rolls
    nothing and `die` may be None. A failure starts a fresh, untreated episode at the current second, unless the
    character is already ill with that disease.
    """
    _alive(health, "be exposed to a disease")
    if not isinstance(illness, Illness):
        raise ValueError(f"not an Illness: {illness!r}")
    if health.is_protected(illness.category):
        return health, None
    if die is None:
        raise ValueError("the resistance check needs a die")
    result = roll_check(
        die,
        RESISTANCE_DIE,
        health.constitution,
        penalty_parts(health, CHECK_ROLLS["resistance"]),
        RESISTANCE_DIFFICULTY[illness.category],
    )
    if result.success:
        # Older days can never protect again, so they are dropped to keep the state small.
        kept = tuple(entry for entry in health.protection if entry[1] >= health.day)
        return replace(health, protection=(*kept, (illness.category, health.day))), result
    if _ill_with(health, illness):
        return health, result
    episode = replace(illness, since=health.now, treated=False, medicated=False, cured_at=None, weeks_charged=0)
    return _rebased(health, replace(health, illnesses=(*health.illnesses, episode))), result


def treat_wounds(health: Health) -> Health:
    """A character with Curar Heridas treats every wound this character has now: they recover in half the time."""
    _alive(health, "be treated")
    wounds = tuple(replace(w, treated=True) if w.amount > 0 and not w.treated else w for w in health.wounds)
    return _rebased(health, replace(health, wounds=wounds))


def _find_illness(health: Health, which: int | str) -> int:
    if isinstance(which, bool):
        raise ValueError(f"no such illness: {which!r}")
    if isinstance(which, int):
        if not 0 <= which < len(health.illnesses):
            raise ValueError(f"no illness number {which}")
        return which
    # By identity: the latest episode of that disease, which is the current one if any.
    for index in reversed(range(len(health.illnesses))):
        if health.illnesses[index].identity == which:
            return index
    raise ValueError(f"not ill with {which!r}")


def _care(health: Health, which: int | str, flag: Literal["treated", "medicated"]) -> Health:
    _alive(health, "be cared for")
    index = _find_illness(health, which)
    illness = health.illnesses[index]
    label = repr(illness.name or illness.identity)
    if illness.cured:
        raise Refused("cured", f"{label} is already cured")
    if flag == "treated":
        if illness.treated:
            raise Refused("treated", f"{label} is already treated")
        illness = replace(illness, treated=True)
    else:
        if illness.medicated:
            raise Refused("medicated", f"{label} has already had its medicine")
        illness = replace(illness, medicated=True)
    if illness.cured:
        illness = replace(illness, cured_at=health.now)
    illnesses = (*health.illnesses[:index], illness, *health.illnesses[index + 1 :])
    return _rebased(health, replace(health, illnesses=illnesses))


def treat_illness(health: Health, which: int | str) -> Health:
    """Treatment with Curar Heridas by *another* character (the caller checks who); `which` is an index or a key."""
    return _care(health, which, "treated")


def medicate(health: Health, which: int | str) -> Health:
    return _care(health, which, "medicated")


def healing_time(health: Health, kind: str) -> int | None:
    """Campaign seconds of rest until the pool of this kind has fully recovered, if nothing else happens.

    0 when nothing of that kind is outstanding; None when some of it cannot recover yet (an illness not yet cured) or
    the character is dead.
    """
    _kind(kind)
    outstanding = [wound for wound in health.wounds if wound.kind == kind and wound.amount > 0]
    if not outstanding:
        return 0
    pool = _pool(health.wounds, health.illnesses, kind)
    if health.dead or len(pool) < len(outstanding):
        return None
    total = sum(health.wounds[index].amount * recovery_interval(kind, health.wounds[index].treated) for index in pool)
    return max(total - health.progress_of(kind), 0)
