"""A campaign as one document (rules.backup.schema): a read, never a write. An export of an import of it by the same GM
on the same site is the same document, byte for byte: keys are numbered in id order, and names kept by name."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterable
from typing import Any, Literal, cast

import msgspec
from django.db import transaction

from campaigns.models import Campaign, Event, PartyView
from characters.models import Character
from rules import events, mapping
from rules.actions.core import lock_campaign
from rules.backup import references
from rules.backup.schema import (
    CampaignPart,
    CharacterEntry,
    CharacterPartyView,
    DiseaseEntry,
    Document,
    EventEntry,
    IllnessEntry,
    Missing,
    SessionEntry,
    State,
    TemplateEntry,
    WoundEntry,
    with_diseases,
)
from rules.events import EventKind
from rules.models import Category, Disease, Illness, Wound, WoundKind

logger = logging.getLogger(__name__)


class _Keys:
    """Row ids of one kind and their keys: the rows of the campaign in id order, then ids the log mentions that are
    gone (a disease whose adding was undone), also in id order, so that an export of an import numbers them alike."""

    def __init__(self, prefix: str, ids: Iterable[int]) -> None:
        self.prefix = prefix
        self.keys: dict[int, str] = {}
        self.seen: set[int] = set()
        self.add(ids)

    def add(self, ids: Iterable[int]) -> list[str]:
        added = []
        for pk in ids:
            self.keys[pk] = f"{self.prefix}{len(self.keys) + 1}"
            added.append(self.keys[pk])
        return added

    def unknown(self) -> list[int]:
        return sorted(self.seen - set(self.keys))


def export_campaign(campaign: Campaign | int) -> dict[str, Any]:
    """The whole campaign as JSON values (see rules.backup.schema)."""
    exported: dict[str, Any] = msgspec.to_builtins(document_of(campaign))
    return exported


@transaction.atomic
def document_of(campaign: Campaign | int) -> Document:
    """The campaign as one document, read under its lock: every action takes it first, so that the document is the
    campaign at one moment (a change half read would be a document that no import takes)."""
    campaign = lock_campaign(campaign, None)  # a read: who may export is the page's (campaigns.access)
    characters = list(Character.everyone.filter(campaign=campaign).order_by("id"))
    wounds = list(Wound.objects.filter(character__campaign=campaign).order_by("id"))
    illnesses = list(Illness.objects.filter(character__campaign=campaign).order_by("id"))
    log = list(campaign.events.select_related("actor", "undone_by").order_by("id"))
    payloads = [_payload(event) for event in log]
    own = list(Disease.objects.filter(campaign=campaign).order_by("id"))
    keys = {
        "character": _Keys("c", (c.pk for c in characters)),
        "disease": _Keys("d", (d.pk for d in own)),
        "event": _Keys("e", (e.pk for e in log)),
    }

    def seen(what: str, value: Any) -> Any:
        if what in keys:
            keys[what].seen.add(int(value))
        return value

    def key(what: str, value: Any) -> Any:
        """A row's key; None for what the document leaves out (accounts, invitation links)."""
        return keys[what].keys[int(value)] if what in keys else None

    for index, event in enumerate(log):
        _refer(event, seen)
        try:
            if (payload := payloads[index]) is not None:
                references.mapped(payload, seen)
        except (TypeError, ValueError):  # a reference that is no id: a damaged entry, exported as it is
            payloads[index] = None
    for wound in wounds:
        if wound.illness_key:
            seen("disease", wound.illness_key.removeprefix("disease:"))
    for illness in illnesses:
        seen("disease", illness.disease_id)
    # The site's diseases its characters caught get keys after the campaign's own; then what is gone, by kind.
    site = list(Disease.objects.filter(pk__in=keys["disease"].unknown()).order_by("id"))
    keys["disease"].add(d.pk for d in site)
    missing = {what: keys[what].add(keys[what].unknown()) for what in ("character", "disease", "event")}

    def identity(value: str) -> str:
        return f"disease:{key('disease', value.removeprefix('disease:'))}" if value else ""

    wounds_of: dict[int, list[WoundEntry]] = {c.pk: [] for c in characters}
    for w in wounds:
        # A row standing for a run of equal wounds (rules.mapping) is written out as its wounds, one by one.
        wounds_of[w.character_id] += [
            WoundEntry(
                kind=WoundKind(w.kind),
                amount=w.amount,
                remaining=w.remaining,
                treated=w.treated,
                inflicted_at=at,
                illness_key=identity(w.illness_key),
            )
            for at in mapping.moments(w.inflicted_at, w.times, w.every)
        ]
    illnesses_of: dict[int, list[IllnessEntry]] = {c.pk: [] for c in characters}
    for i in illnesses:
        illnesses_of[i.character_id].append(
            IllnessEntry(
                disease=key("disease", i.disease_id),
                category=Category(i.category),
                penalty=i.penalty,
                pg_per_week=i.pg_per_week,
                since=i.since,
                treated=i.treated,
                medicated=i.medicated,
                cured_at=i.cured_at,
                weeks_charged=i.weeks_charged,
            )
        )

    def scope(disease: Disease) -> Literal["campaign", "builtin", "site"]:
        if disease.campaign_id == campaign.pk:
            return "campaign"
        return "builtin" if disease.builtin else "site"

    return Document(
        format="12plus-campaign",
        version=1,
        campaign=CampaignPart(
            name=campaign.name,
            clock=campaign.clock,
            created=campaign.created,
            party_view=PartyView(campaign.party_view),
        ),
        diseases=[
            DiseaseEntry(
                key=key("disease", d.pk),
                scope=scope(d),
                name=d.name,
                category=Category(d.category),
                penalty=d.penalty,
                pg_per_week=d.pg_per_week,
                retired=d.retired,
            )
            for d in [*own, *site]
        ],
        characters=[
            CharacterEntry(
                key=key("character", c.pk),
                name=c.name,
                constitution=c.constitution,
                jump=c.jump,
                heal_wounds=c.heal_wounds,
                weight_kg=c.weight_kg,
                notes=c.notes,
                party_view=cast(CharacterPartyView, c.party_view),
                rests_between_sessions=c.rests_between_sessions,
                pg=c.pg,
                died_at=c.died_at,
                recovery_progress={WoundKind(kind): seconds for kind, seconds in c.recovery_progress.items()},
                protection=[(Category(category), day) for category, day in c.protection],
                removed=c.removed,
                created=c.created,
                wounds=wounds_of[c.pk],
                illnesses=illnesses_of[c.pk],
            )
            for c in characters
        ],
        events=[_entry(event, payload, key) for event, payload in zip(log, payloads, strict=True)],
        missing=Missing(**missing),
        templates=[
            TemplateEntry(
                name=t.name,
                count=t.count,
                constitution=t.constitution,
                jump=t.jump,
                heal_wounds=t.heal_wounds,
                weight_kg=t.weight_kg,
                party_view=cast(CharacterPartyView, t.party_view),
                notes=t.notes,
            )
            for t in campaign.npc_templates.order_by("name", "id")
        ],
        sessions=[
            SessionEntry(
                number=s.number,
                started=key("event", s.started_id),
                ended=None if s.ended_id is None else key("event", s.ended_id),
                shared_at=s.shared_at,
            )
            for s in campaign.game_sessions.order_by("number")
        ],
    )


def _payload(event: Event) -> events.Payload | None:
    try:
        return events.payload_of(event)
    except events.DamagedEntry:
        # An entry no action wrote (an import of an older, laxer version): it goes as it is, and an import of the
        # document says where it is wrong.
        logger.warning("event %s of campaign %s is damaged: exported as it is", event.pk, event.campaign_id)
        return None


def _refer(event: Event, seen: Any) -> None:
    """Note the rows an entry names beside its payload's: its characters, the characters and diseases of its states."""
    for pk in event.characters:
        seen("character", pk)
    for states in (event.before, event.after):
        for pk, state in states.items():
            seen("character", pk)
            with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError):  # damaged: exported as it is
                with_diseases(state, seen)


def _entry(event: Event, payload: events.Payload | None, key: Any) -> EventEntry:
    details = event.details
    if payload is not None:
        details = events.stored(references.mapped(payload, key))
    return EventEntry(
        key=key("event", event.pk),
        action=EventKind(event.action),
        actor=event.actor.username if event.actor else event.actor_name or None,
        clock_before=event.clock_before,
        clock_after=event.clock_after,
        created=event.created,
        characters=[key("character", pk) for pk in event.characters],
        details=details,
        before=_states(event.before, key),
        after=_states(event.after, key),
        undone=event.undone,
        undone_at=event.undone_at,
        undone_by=event.undone_by.username if event.undone_by else event.undone_by_name or None,
    )


def _states(states: dict[str, Any], key: Any) -> dict[str, State]:
    exported = {}
    for pk, state in states.items():
        try:
            # Read and written again as the app writes states now (an older entry's wound may carry a field since gone).
            current = mapping.to_json(mapping.from_json(state))
            exported[key("character", pk)] = msgspec.convert(with_diseases(current, key), State)
        except (msgspec.ValidationError, KeyError, TypeError, ValueError, AttributeError):
            exported[key("character", pk)] = cast(State, state)  # a damaged state: exported as it is
    return exported
