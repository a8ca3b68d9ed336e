"""A character's PG over campaign time, drawn on the server as SVG from the campaign log's states.

Every event not undone holds the character's state before and after it (rules.mapping). Between an advance's two
states the engine itself gives the PG at any moment (advancing part of the way is exact, by the composition law), so
the line follows recoveries and weekly losses inside long advances too. Markers show wounds by kind, falling ill,
cures, treatment and death; the penalty table's bands are the background stripes. Changes at one campaign second
(blows in one fight) are drawn one after another, in the log's order, each a step of its own (`steps_of`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.utils.translation import gettext as _

from campaigns.clock import format_clock
from campaigns.models import Campaign, Event
from characters.models import Character
from rules import engine, events, mapping
from rules.events import EventKind
from rules.explained import penalty_bands
from rules.models import WoundKind, disease_name

WIDTH, HEIGHT = 360, 190
LEFT, RIGHT, TOP, BOTTOM = 34, 10, 10, 24  # room for the axis labels
SAMPLES = 48  # points inside each advance: enough for a smooth line at any width the page has


@dataclass(frozen=True)
class Marker:
    at: int
    pg: int
    kind: str  # a wound kind, or "ill", "cured", "treated" (wounds or an illness treated, medicine), "died"
    label: str
    x: float = 0
    y: float = 0
    point: int | None = None  # the index of its event's last point in the chart's points (None: placed by `at` alone)


@dataclass(frozen=True)
class Stripe:
    y: float
    height: float
    band: str  # the card's band class for that row of the penalty table
    label: str


@dataclass(frozen=True)
class Timeline:
    width: int
    height: int
    path: str
    stripes: list[Stripe]
    markers: list[Marker]
    legend: list[tuple[str, str]]  # (kind, words) of the markers drawn
    top: int
    start: str
    end: str
    summary: str
    left: int = LEFT  # the plotting area
    right: int = WIDTH - RIGHT
    top_y: int = TOP
    bottom: int = HEIGHT - BOTTOM

    @property
    def plot_width(self) -> int:
        return self.right - self.left


@dataclass(frozen=True)
class Stretch:
    """What one event did to one character: its states' points (the first only when it is the character's first
    state, or the state before it), the markers, and the highest max PG on the way."""

    start: tuple[int, int] | None  # (second, PG) before the event
    points: list[tuple[int, int]]
    markers: list[Marker]
    top: int


def timeline_for(campaign: Campaign, character: Character) -> Timeline:
    """The chart of one character, from the log as it stands (undone events left out): one query."""
    fields = ("action", "clock_before", "clock_after", "details", "before", "after")
    entries = (
        Event.objects.filter(campaign=campaign, characters__contains=[character.pk], undone=False)
        .exclude(action=EventKind.UNDO)
        .order_by("id")
        .only(*fields)
    )
    points: list[tuple[int, int]] = []
    markers: list[Marker] = []
    top = character.max_pg
    for event in entries:
        stretch = stretch_of(event, character.pk)
        if not points and stretch.start is not None:
            points.append(stretch.start)
        points += stretch.points
        markers += placed_at(stretch.markers, len(points) - 1)
        top = max(top, stretch.top)
    points.append((campaign.clock, character.pg))
    return drawn(character, points, markers, top)


def timeline_between(
    character: Character, entries: list[Event], start: tuple[int, int], end: tuple[int, int]
) -> Timeline:
    """The chart of one character over a stretch of the log (a game session's recap): from `start` to `end`, each a
    (campaign second, PG), through `entries` — the stretch's standing events in id order, read once for every
    character of the recap (those not about this one are passed over)."""
    points, markers, top = [start], [], character.max_pg
    for event in entries:
        if character.pk in event.characters:
            stretch = stretch_of(event, character.pk)
            points += stretch.points
            markers += placed_at(stretch.markers, len(points) - 1)
            top = max(top, stretch.top)
    points.append(end)
    return drawn(character, points, markers, top)


def placed_at(markers: list[Marker], point: int) -> list[Marker]:
    """An event's markers, tied to its last point: where the chart draws them when several changes share a second."""
    return [replace(marker, point=point) for marker in markers]


def stretch_of(event: Event, pk: int) -> Stretch:
    key = str(pk)
    if key not in event.after:  # an event about the character that holds no state of it (an invitation)
        return Stretch(None, [], [], 0)
    after = mapping.from_json(event.after[key])
    if key not in event.before:  # the character's first state
        return Stretch(None, [(event.clock_after, after.pg)], [], after.max_pg)
    before = mapping.from_json(event.before[key])
    points = []
    span = event.clock_after - event.clock_before
    payload = readable(event)
    if isinstance(payload, events.Advance) and span > 0:
        resting = pk in payload.resting
        for step in range(1, SAMPLES):
            seconds = span * step // SAMPLES
            points.append((event.clock_before + seconds, engine.advance(before, seconds, resting=resting).pg))
    points.append((event.clock_after, after.pg))
    top = max(before.max_pg, after.max_pg)
    return Stretch((event.clock_before, before.pg), points, markers_of(payload, event, before, after), top)


def readable(event: Event) -> events.Payload | None:
    """The entry's payload; None for one that cannot be read (the log says so: the chart draws its states alone)."""
    try:
        return events.payload_of(event)
    except events.DamagedEntry:
        return None


def markers_of(
    payload: events.Payload | None, event: Event, before: engine.Health, after: engine.Health
) -> list[Marker]:
    labels = dict(WoundKind.choices)
    found = [
        Marker(wound.inflicted_at, after.pg, wound.kind, f"{labels[wound.kind]} −{wound.amount}")
        for wound in after.wounds[len(before.wounds) :]
        if wound.kind != "illness"  # the weekly losses show in the line itself
    ]
    found += [
        Marker(illness.since, after.pg, "ill", _("Enferma: %(name)s") % {"name": disease_name(illness.name)})
        for illness in after.illnesses[len(before.illnesses) :]
    ]
    treatment = treatment_of(payload)
    if treatment:
        found.append(Marker(event.clock_after, after.pg, "treated", treatment))
    found += [
        Marker(now.cured_at, after.pg, "cured", _("Curada: %(name)s") % {"name": disease_name(now.name)})
        for was, now in zip(before.illnesses, after.illnesses, strict=False)
        if now.cured_at is not None and was.cured_at is None
    ]
    if after.died_at is not None and before.died_at is None:
        found.append(Marker(after.died_at, 0, "died", _("Muere")))
    return found


def treatment_of(payload: events.Payload | None) -> str:
    """What a treatment marker says: wounds treated, an illness treated, medicine taken; "" for any other event."""
    if isinstance(payload, events.TreatWounds):
        return _("Heridas tratadas")
    if isinstance(payload, events.TreatIllness):
        return _("%(disease)s tratada") % {"disease": disease_name(payload.disease)}
    if isinstance(payload, events.Medicate):
        return _("Medicamentos para %(disease)s") % {"disease": disease_name(payload.disease)}
    return ""


def drawn(character: Character, points: list[tuple[int, int]], markers: list[Marker], top: int) -> Timeline:
    start, end = points[0][0], points[-1][0]
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM
    steps = steps_of(points)
    span, count = end - start, steps[-1]
    # Changes at one campaign second (the blows of one fight, an evening with no time passed) follow each other in
    # the log's order: each takes a step of the width of its own, a share of the chart that time does not get.
    share = 1.0 if span == 0 else min(STEPS_SHARE, STEP_SHARE * count)

    def x(at: int, step: int = 0) -> float:
        by_time = (1 - share) * (at - start) / span if span else 0.0
        by_step = share * step / count if count else 0.0
        return round(LEFT + (by_time + by_step) * (right - LEFT), 1)

    def marker_x(marker: Marker) -> float:
        return x(marker.at, steps[marker.point] if marker.point is not None else 0)

    def y(pg: int) -> float:
        return round(bottom - pg * (bottom - TOP) / top, 1)

    # A step line: PG holds until the next point, then changes at once. Points that land on the same spot once
    # scaled are drawn once, so a long history costs no more than the chart's width.
    placed_points = [(x(at, step), y(pg)) for (at, pg), step in zip(points, steps, strict=True)]
    kept = [point for i, point in enumerate(placed_points) if i == 0 or point != placed_points[i - 1]]
    path = f"M{kept[0][0]} {kept[0][1]}" + "".join(f" H{px} V{py}" for px, py in kept[1:])
    stripes = [
        Stripe(y(highest + 1), round(y(lowest) - y(highest + 1), 1), anchor.replace("penalty-", "band-"), label)
        for anchor, lowest, highest in penalty_bands()
        if highest is not None and lowest > 0 and highest < top
        for label in [f"{lowest}–{highest}" if lowest != highest else str(lowest)]
    ]
    # Markers of one kind on one spot are one circle whose title lists them: a long history costs no more than the
    # chart's size (sixty blows in one fight are one mark).
    spots: dict[tuple[str, float, float], list[Marker]] = {}
    for marker in markers:
        spots.setdefault((marker.kind, marker_x(marker), y(marker.pg)), []).append(marker)
    placed = [Marker(same[0].at, same[0].pg, kind, titled(same), px, py) for (kind, px, py), same in spots.items()]
    kinds = dict(WoundKind.choices)
    words = {**{kind: str(label) for kind, label in kinds.items()}, **marker_words()}
    legend = [(kind, words[kind]) for kind in dict.fromkeys(m.kind for m in placed)]
    summary = _("PG de %(name)s entre %(start)s y %(end)s: de %(first)s a %(last)s (máximo %(top)s).") % {
        "name": character.name,
        "start": format_clock(start),
        "end": format_clock(end),
        "first": points[0][1],
        "last": points[-1][1],
        "top": top,
    }
    return Timeline(
        WIDTH,
        HEIGHT,
        path,
        stripes,
        placed,
        legend,
        top,
        format_clock(start),
        format_clock(end),
        summary,
    )


STEP_SHARE = 0.04  # of the chart's width, for each change at the second of the one before it
STEPS_SHARE = 0.5  # at most, for all of them: time keeps the rest


def steps_of(points: list[tuple[int, int]]) -> list[int]:
    """For each point, how many changes before it (itself too) came at the very second of the point before them: a
    point at its predecessor's second with the same PG is no change (an advance's samples of a few seconds)."""
    steps, count = [], 0
    for index, (at, pg) in enumerate(points):
        if index and at == points[index - 1][0] and pg != points[index - 1][1]:
            count += 1
        steps.append(count)
    return steps


def titled(same: list[Marker]) -> str:
    lines = [f"{format_clock(marker.at)} — {marker.label}" for marker in same[:MARKER_LINES]]
    if len(same) > MARKER_LINES:
        lines.append(_("y %(count)s más") % {"count": len(same) - MARKER_LINES})
    return "\n".join(lines)


MARKER_LINES = 4


def marker_words() -> dict[str, str]:
    return {"ill": _("Enferma"), "cured": _("Curada"), "treated": _("Tratamiento"), "died": _("Muere")}
