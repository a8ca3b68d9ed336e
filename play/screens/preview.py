"""A time skip previewed (rules.queries.preview_advance), in words for the GM: per character, PG now and after, who
rests, and when each wound heals, each weekly illness loss falls and death comes."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaigns.clock import format_clock, format_duration
from rules import queries
from rules.models import WoundKind, disease_name


@dataclass(frozen=True)
class Row:
    name: str
    pg_before: int
    pg_after: int
    max_pg: int
    rests: bool
    lines: list[str]
    dies: bool
    dead: bool  # already dead: the advance changes nothing for them, rest or not


@dataclass(frozen=True)
class PreviewInWords:
    title: str
    rows: list[Row]


def preview_in_words(preview: queries.AdvancePreview) -> PreviewInWords:
    end = preview.clock + preview.seconds
    title = _("Si avanzas %(duration)s (%(start)s → %(end)s)") % {
        "duration": format_duration(preview.seconds),
        "start": format_clock(preview.clock),
        "end": format_clock(end),
    }
    return PreviewInWords(title, [row_of(character) for character in preview.characters])


def row_of(character: queries.CharacterPreview) -> Row:
    before, shown = character.before, character.preview
    after = shown.after
    return Row(
        character.character.name,
        before.pg,
        after.pg,
        after.max_pg,
        character.resting,
        healed_lines(character) + recovered_lines(character) + loss_lines(character) + death_lines(character),
        shown.died_at is not None,
        before.dead,
    )


def healed_lines(character: queries.CharacterPreview) -> list[str]:
    """Each kind's wounds that heal, with the moment the last of them does."""
    labels = dict(WoundKind.choices)
    by_kind: dict[str, list[int]] = defaultdict(list)
    for index, at in character.preview.healed:
        by_kind[character.before.wounds[index].kind].append(at)
    return [
        ngettext(
            "%(kind)s: sana del todo el %(when)s",
            "%(kind)s: sanan %(count)s heridas, la última el %(when)s",
            len(moments),
        )
        % {"kind": labels[kind], "count": len(moments), "when": format_clock(max(moments))}
        for kind, moments in by_kind.items()
    ]


def recovered_lines(character: queries.CharacterPreview) -> list[str]:
    """Each kind's wounds that recover some PG without healing fully: how much, and how much is still outstanding."""
    labels = dict(WoundKind.choices)
    recovered: dict[str, int] = defaultdict(int)
    left: dict[str, int] = defaultdict(int)
    after = character.preview.after.wounds
    for index, wound in enumerate(character.before.wounds):
        if 0 < after[index].amount < wound.amount:
            recovered[wound.kind] += wound.amount - after[index].amount
            left[wound.kind] += after[index].amount
    return [
        _("%(kind)s: recupera %(pg)s PG, quedan −%(left)s") % {"kind": labels[kind], "pg": pg, "left": left[kind]}
        for kind, pg in recovered.items()
    ]


def loss_lines(character: queries.CharacterPreview) -> list[str]:
    """Each illness's weekly losses: how many, how much, the first and the last."""
    names = {illness.identity: disease_name(illness.name) for illness in character.before.illnesses}
    by_illness: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for wound in character.preview.losses:
        if wound.kind == "illness":
            by_illness[wound.illness_key or ""].append((wound.inflicted_at, wound.amount))
    lines = []
    for key, losses in by_illness.items():
        first, last = losses[0][0], losses[-1][0]
        values = {
            "name": names.get(key, key),
            "pg": sum(amount for _at, amount in losses),
            "first": format_clock(first),
        }
        if len(losses) == 1:
            lines.append(_("%(name)s: −%(pg)s PG el %(first)s") % values)
        else:
            values.update(count=len(losses), last=format_clock(last))
            lines.append(_("%(name)s: −%(pg)s PG en %(count)s semanas, del %(first)s al %(last)s") % values)
    return lines


def death_lines(character: queries.CharacterPreview) -> list[str]:
    died_at = character.preview.died_at
    return [] if died_at is None else [_("Muere el %(when)s") % {"when": format_clock(died_at)}]
