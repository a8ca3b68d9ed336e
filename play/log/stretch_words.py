"""A character over a stretch of the log, in words: the lines "Desde tu última visita" shows, most telling first, and
the wounds and checks a session's recap lists (play.screens.game_sessions): one wording of each. What may be read of a
stretch is play.log.recaps' to say; this only words what it gives.

Own characters (and every one, for the GM) read in full: deaths, PG before → now, illnesses caught, wounds by kind,
cures, checks with their results, checks still owed. A companion reads as its party view allows: its PG before → now
(EXACT) or the word for its condition at each end (BAND); nothing when that did not change.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from play.log.recaps import SeenCompanion
from rules.models import CheckKind, WoundKind, disease_name
from rules.stretches import CharacterStretch, Rolled


@dataclass(frozen=True)
class Told:
    """One character over a stretch, in words: its first `lines`, how many more there were and where to read them."""

    pk: int | None  # None for a companion: its id is not the reader's to have
    name: str
    lines: list[str]
    more: int = 0
    url: str = ""  # its sheet, where its log tells the rest ("" for a companion)
    own: bool = True


def character_lines(row: CharacterStretch) -> list[str]:
    """Everything a full reader reads of one character over the stretch, the most telling first: coming, dying and
    leaving in the order they happen, then its PG then against its PG now."""
    lines: list[str] = []
    if row.added and row.first is not None:  # its first state in the stretch: the one it joined with
        lines.append(_("Entró en la campaña con %(pg)d PG.") % {"pg": row.first.pg})
    if row.died_at is not None:
        lines.append(_("Murió."))
    if row.removed:
        lines.append(_("Salió de la campaña."))
    if row.first is not None and row.last is not None and row.first.pg != row.last.pg:
        lines.append(pg_line(row.first.pg, row.last.pg, row.last.max_pg))
    lines += [_("Enfermó: %(name)s.") % {"name": disease_name(name)} for name in row.caught]
    lines += wound_lines(row)
    lines += [_("Se curó: %(name)s.") % {"name": disease_name(name)} for name in row.cured]
    lines += [rolled_line(roll) for roll in row.rolls]
    lines += [_("%(check)s: pendiente.") % {"check": CheckKind(kind).label} for kind in row.pending]
    return lines


def pg_line(start: int, end: int, max_pg: int) -> str:
    return _("PG: %(start)d → %(end)d de %(max)d.") % {"start": start, "end": end, "max": max_pg}


def wound_lines(row: CharacterStretch) -> list[str]:
    """Each kind of wound taken: "2 heridas de Ataque físico directo: 9 PG"; a serious illness's weekly losses as what
    they are: "Perdió 6 PG por Peste"."""
    lines = []
    for kind, tally in row.wounds.items():
        if kind == WoundKind.ILLNESS:
            lines += [
                _("Perdió %(pg)s PG por %(disease)s.") % {"pg": pg, "disease": disease_name(name)}
                if name
                else _("Perdió %(pg)s PG por enfermedad.") % {"pg": pg}
                for name, pg in row.losses.items()
            ]
            continue
        words = ngettext(
            "%(count)s herida de %(kind)s: %(pg)s PG", "%(count)s heridas de %(kind)s: %(pg)s PG", tally.count
        )
        lines.append(words % {"count": tally.count, "kind": WoundKind(kind).label, "pg": tally.pg})
    return lines


def rolled_line(roll: Rolled) -> str:
    """A check and its result: "Tirada de caída: sacó 3, total 5 contra 12: fallo (tirada pedida; tiró ana)"."""
    check = str(CheckKind(roll.check).label)
    if roll.disease:
        check = _("%(check)s contra %(disease)s") % {"check": check, "disease": disease_name(roll.disease)}
    if roll.protected:
        return _("%(check)s: protegido hoy, sin tirada") % {"check": check}
    result = _("éxito") if roll.success else _("fallo")
    words = _("%(check)s: sacó %(die)s, total %(total)s contra %(difficulty)s: %(result)s") % {
        "check": check,
        "die": roll.die,
        "total": roll.total,
        "difficulty": roll.difficulty,
        "result": result,
    }
    if roll.answered:
        words += " " + _("(tirada pedida; tiró %(who)s)") % {"who": roll.by or _("el servidor")}
    return words


def companion_lines(companion: SeenCompanion) -> list[str]:
    """What a player reads of a companion over the stretch: nothing when what they may read of it did not change."""
    if companion.exact:
        lines = [_("Murió.")] if companion.died else []
        if companion.pg_start is not None and companion.pg_end is not None and companion.pg_start != companion.pg_end:
            lines.append(pg_line(companion.pg_start, companion.pg_end, companion.max_pg or companion.pg_end))
        return lines
    if companion.condition_start == companion.condition_end:
        return []
    return [_("%(start)s → %(end)s.") % {"start": companion.word_start, "end": companion.word_end}]
