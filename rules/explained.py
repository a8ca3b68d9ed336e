"""The rules page: docs/rules.md put in words for the table, every number read from the engine itself (its constants,
and its functions run on worked examples), so the page cannot disagree with what the app does.

Each line has an anchor: the table and the sheet link a roll's breakdown or a penalty to the line that explains it
(`why`), in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from campaigns.clock import format_duration
from rules import engine
from rules.models import BUILTIN_DISEASES, Category, WoundKind, disease_name
from rules.signs import signed


@dataclass(frozen=True)
class Row:
    anchor: str
    cells: list[str]


@dataclass(frozen=True)
class Section:
    anchor: str
    title: str
    lines: list[tuple[str, str]] = field(default_factory=list)  # (anchor, text)
    headers: list[str] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)


def why(anchor: str) -> str:
    """The address of the line that explains something, for a "¿Por qué?" link."""
    return f"{reverse('rules')}#{anchor}"


def penalty_anchor(pg: int) -> str:
    """The row of the penalty table that applies at `pg`."""
    row = engine.penalty_row(pg)
    return "penalty-none" if row is None else f"penalty-{row}"


def check_anchor(check: str) -> str:
    """The line that explains a check of the log ("fall", "resistance", "exertion")."""
    return {"fall": "damage-fall", "resistance": "illness-resistance", "exertion": "exertion"}.get(check, "checks")


def sections() -> list[Section]:
    return [hit_points(), damage(), checks(), penalties(), conditions(), exertion(), recovery(), illness(), death()]


def hit_points() -> Section:
    per_con = engine.max_pg(1)
    return Section(
        "pg",
        _("Puntos de Golpe (PG)"),
        [
            (
                "pg-max",
                _("PG máximos = %(n)s × CON (CON 8: %(example)s PG). CON va de %(low)s a %(high)s.")
                % {"n": per_con, "example": engine.max_pg(8), "low": engine.CON_MIN, "high": engine.CON_MAX},
            ),
            ("pg-now", _("PG actuales = PG máximos − el daño pendiente de todas las heridas; nunca menos de 0.")),
        ],
    )


def damage() -> Section:
    low, high = engine.LIMITS["amount"]
    labels = dict(WoundKind.choices)
    formulas = {
        "attack": _(
            "Lo que diga el Narrador: un número entero de %(low)s a %(high)s, o una tirada como 2d6+1 que hace "
            "el servidor (un total negativo cuenta como 0)."
        )
        % {"low": low, "high": high},
        "collision": _("⌊km/h ÷ 10⌋ + ⌊kg ÷ 10⌋. A 60 km/h con 75 kg: %(n)s PG.")
        % {"n": engine.collision_damage(60, 75)},
        "fall": _(
            "Tirada 1d%(die)s + Saltar contra la dificultad que ponga el Narrador (%(default)s si no dice otra). "
            "Si la supera, nada; si falla, ⌊altura en m⌋ + ⌊kg ÷ 10⌋. Desde 4 m con 75 kg: %(n)s PG."
        )
        % {"die": engine.FALL_DIE, "default": engine.DEFAULT_FALL_DIFFICULTY, "n": engine.fall_damage(4, 75)},
        "drowning": _("%(n)s PG por turno bajo el agua (3 turnos: %(three)s PG).")
        % {"n": engine.drowning_damage(1), "three": engine.drowning_damage(3)},
        "gas": _("%(n)s PG por turno respirando el gas (3 turnos: %(three)s PG).")
        % {"n": engine.gas_damage(1), "three": engine.gas_damage(3)},
        "illness": _("La pérdida semanal de una enfermedad grave (ver Enfermedad)."),
        "exertion": _("1 PG al fallar una tirada de esfuerzo (ver Esfuerzo)."),
    }
    return Section(
        "damage",
        _("Daño"),
        [
            (
                "damage-record",
                _("Toda pérdida es una herida de un tipo. Se anota aunque sea de 0 PG o el personaje ya esté muerto."),
            )
        ],
        [_("Tipo"), _("PG perdidos")],
        [Row(f"damage-{kind}", [str(labels[kind]), formulas[kind]]) for kind in engine.KINDS],
    )


def checks() -> Section:
    return Section(
        "checks",
        _("Tiradas"),
        [
            (
                "checks-total",
                _(
                    "Se tira el dado, se suma el atributo o la habilidad y todas las penalizaciones que se "
                    "apliquen: se supera si el total es igual o mayor que la dificultad."
                ),
            ),
            (
                "checks-die",
                _("El dado lo tira el servidor, o lo escribe el Narrador si en la mesa se tiran dados de verdad."),
            ),
            (
                "checks-kinds",
                _(
                    "La tirada de caída es física; la de resistencia y la de esfuerzo son de las demás. "
                    "Las penalizaciones de los PG bajos y de cada enfermedad se suman."
                ),
            ),
        ],
    )


def penalty_bands() -> list[tuple[str, int, int | None]]:
    """The rows of the penalty table as (anchor, lowest PG, highest PG or None for "or more"), highest first, read
    from engine.penalties at every PG up to the first that has no penalty."""
    bands: dict[str, list[int]] = {}
    pg = 0
    while True:
        bands.setdefault(penalty_anchor(pg), []).append(pg)
        if engine.penalty_row(pg) is None:
            break
        pg += 1
    return [
        (anchor, min(values), None if anchor == "penalty-none" else max(values))
        for anchor, values in reversed(bands.items())
    ]


def penalties() -> Section:
    rows = []
    for anchor, lowest, highest in penalty_bands():
        result = engine.penalties(lowest)
        if result.dead:
            cells = [str(lowest), _("muerto"), _("muerto"), "—"]
        else:
            if highest is None:
                span = _("%(n)s o más") % {"n": lowest}
            elif lowest == highest:
                span = str(lowest)
            else:
                span = f"{lowest}–{highest}"
            cells = [span, signed(result.physical), signed(result.other), _("sí") if result.exertion else _("no")]
        rows.append(Row(anchor, cells))
    return Section(
        "penalties",
        _("Penalizaciones por PG bajos"),
        [("penalties-all", _("Una fila que penaliza «todas las tiradas» también cubre las físicas."))],
        [_("PG actuales"), _("Tiradas físicas"), _("Demás tiradas"), _("Tirada de esfuerzo")],
        rows,
    )


# --- a character's condition in one word: what the other players may read of it ---------------------------------------
# Six words for the seven rows of docs/rules.md §4's penalty table, settled for issue 13: Ileso at full PG; Herido
# with 11 PG or more, short of full (the row without penalties); Malherido on the rows 9–10 and 7–8; Grave on 5–6 and
# 3–4; Moribundo on 1–2; Muerto at 0 (dead). Read from the engine's rows (engine.penalty_row), so a word can never
# disagree with the penalty table. Two rows share a word: the word tells no more than it says.
CONDITIONS = {
    "unhurt": gettext_lazy("Ileso"),
    "hurt": gettext_lazy("Herido"),
    "badly-hurt": gettext_lazy("Malherido"),
    "grave": gettext_lazy("Grave"),
    "dying": gettext_lazy("Moribundo"),
    "dead": gettext_lazy("Muerto"),
}


def condition_anchor(key: str) -> str:
    return f"condition-{key}"


def condition_spans() -> dict[str, str]:
    """Each word's PG, from the engine: the PG at which each row of the penalty table applies, grouped by word."""
    found: dict[str, list[int]] = {}
    pg = 0
    while engine.penalty_row(pg) is not None:
        found.setdefault(engine.CONDITION_OF_ROW[engine.penalty_row(pg)], []).append(pg)
        pg += 1
    spans = {"unhurt": _("sus PG máximos"), "hurt": _("%(n)s o más, sin llegar al máximo") % {"n": pg}}
    for key, values in found.items():
        low, high = min(values), max(values)
        spans[key] = str(low) if low == high else f"{low}–{high}"
    return spans


def conditions() -> Section:
    spans = condition_spans()
    return Section(
        "conditions",
        _("Lo que ven los demás jugadores"),
        [
            (
                "conditions-who",
                _(
                    "Cada jugador ve siempre sus personajes completos. De los demás ve lo que decida el Narrador para "
                    "la campaña o para cada personaje: sus PG exactos, una palabra o nada."
                ),
            ),
            ("conditions-word", _("La palabra sale de los PG actuales, según la tabla de penalizaciones:")),
        ],
        [_("Palabra"), _("PG actuales")],
        [Row(condition_anchor(key), [str(word), spans[key]]) for key, word in CONDITIONS.items()],
    )


def exertion() -> Section:
    tired = [pg for pg in range(1, engine.max_pg(engine.CON_MAX) + 1) if engine.penalties(pg).exertion]
    return Section(
        "exertion",
        _("Esfuerzo"),
        [
            (
                "exertion-check",
                _(
                    "Con %(low)s a %(high)s PG, cada acción física que anote el Narrador (andar, levantarse, "
                    "arrastrarse…) pide una tirada 1d%(die)s + CON contra %(difficulty)s; si falla, pierde 1 PG. Con "
                    "más PG, o muerto, no hay tirada."
                )
                % {
                    "low": min(tired),
                    "high": max(tired),
                    "die": engine.EXERTION_DIE,
                    "difficulty": engine.EXERTION_DIFFICULTY,
                },
            )
        ],
    )


def recovery() -> Section:
    labels = dict(WoundKind.choices)
    rows = [
        Row(
            f"recovery-{kind}",
            [
                str(labels[kind]),
                format_duration(engine.recovery_interval(kind)),
                format_duration(engine.recovery_interval(kind, treated=True)),
                _("solo descansando") if kind in engine.REST_ONLY else _("siempre"),
            ],
        )
        for kind in engine.KINDS
    ]
    return Section(
        "recovery",
        _("Recuperación con el tiempo de campaña"),
        [
            (
                "recovery-pool",
                _(
                    "Todo el daño pendiente de un tipo se recupera como un solo fondo: 1 PG por intervalo, "
                    "la herida más antigua primero. Los distintos tipos se recuperan a la vez."
                ),
            ),
            (
                "recovery-treated",
                _(
                    "Una herida tratada con Curar Heridas se recupera en la mitad de tiempo. El "
                    "tratamiento vale para las heridas que el personaje tiene en ese momento."
                ),
            ),
            ("recovery-illness", _("Los PG perdidos por una enfermedad solo se recuperan cuando está curada.")),
            (
                "recovery-order",
                _(
                    "Avanzar el reloj en dos veces da lo mismo que hacerlo de una vez; en el mismo "
                    "segundo, las pérdidas van antes que las recuperaciones."
                ),
            ),
        ],
        [_("Tipo"), _("1 PG cada"), _("Tratada"), _("Cuenta")],
        rows,
    )


def illness() -> Section:
    categories = dict(Category.choices)
    rows = [
        Row(
            f"disease-{index}",
            [
                disease_name(name),
                str(categories[category]),
                signed(penalty),
                "—" if per_week is None else str(per_week),
            ],
        )
        for index, (name, category, penalty, per_week) in enumerate(BUILTIN_DISEASES)
    ]
    difficulty = engine.RESISTANCE_DIFFICULTY
    return Section(
        "illness",
        _("Enfermedad"),
        [
            (
                "illness-resistance",
                _(
                    "Al exponerse a una enfermedad: tirada de resistencia 1d%(die)s + CON contra %(common)s (común) o "
                    "%(serious)s (grave). Si falla, enferma (si ya lo estaba de esa enfermedad, nada cambia)."
                )
                % {"die": engine.RESISTANCE_DIE, "common": difficulty["common"], "serious": difficulty["serious"]},
            ),
            (
                "illness-protection",
                _(
                    "Superarla protege de toda enfermedad de esa categoría el resto de ese día de "
                    "campaña: otra exposición ese día no pide tirada."
                ),
            ),
            (
                "illness-penalty",
                _(
                    "Mientras está enfermo, la penalización de la enfermedad se aplica a todas las "
                    "tiradas; las de varias enfermedades se suman."
                ),
            ),
            (
                "illness-weekly",
                _(
                    "Una enfermedad grave quita sus PG por semana cada %(week)s de campaña desde que enfermó, "
                    "descanse o no."
                )
                % {"week": format_duration(engine.WEEK)},
            ),
            (
                "illness-cure",
                _(
                    "Curación: una enfermedad común se cura al ser tratada por otro personaje con Curar "
                    "Heridas o al tomar medicamentos; una grave necesita las dos cosas. Al curarse acaban "
                    "la penalización y la pérdida semanal."
                ),
            ),
        ],
        [_("Enfermedad"), _("Categoría"), _("Penalización"), _("PG por semana")],
        rows,
    )


def death() -> Section:
    return Section(
        "death",
        _("Muerte"),
        [
            (
                "death-zero",
                _(
                    "Con 0 PG el personaje muere, en ese momento del tiempo de campaña. Muerto es 0 PG, "
                    "siempre: subirle la CON no lo revive."
                ),
            ),
            (
                "death-after",
                _(
                    "Un muerto no se recupera, no empeora y no hace tiradas. Solo deshacer el suceso que lo "
                    "mató lo devuelve."
                ),
            ),
        ],
    )
