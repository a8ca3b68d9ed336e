"""A campaign as a whole: creating one (within the per-account cap), its backup as one JSON document, restoring such a
document as a new campaign, and deleting a campaign with everything in it.

The document holds the campaign, its own diseases (and the site's that its characters caught), every character (the
removed ones too: the log tells their story) with their wounds and illnesses, and the full log. Ids inside the
document are its own keys ("c1", "d1", "e1"): an import makes new rows, so every id the log carries — in `before` and
`after`, in `characters`, in `details` — is turned into a key on export and back into a new row's id on import.

Accounts belong to a site and do not travel: players, memberships and invitation links are not in the document, and
the log keeps the names it showed. Who did an event is written as a username; an import credits the events that bear
the importing GM's own username to that GM and every other one to nobody, never to an account of this site that
happens to have the name in the file. So an export of an import by the same GM is the export it came from, but for
the events done by others (a player's claim of a character), which it shows done by nobody.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import asdict, fields
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils.translation import gettext as _

from campaigns.models import Campaign, Event, EventKind, PartyView
from characters.models import SHEET_RANGES, Character
from rules import engine, mapping, notify
from rules.actions.core import ActionError, Actor, checked_name, lock_campaign
from rules.actions.diseases import NAME_LENGTH as DISEASE_NAME_LENGTH
from rules.actions.diseases import DiseaseSheet, name_taken
from rules.actions.sheet import CHARACTER_PARTY_VIEWS, NAME_LENGTH, NOTES_LENGTH, SHEET_FIELDS
from rules.models import (
    PENALTY_MIN,
    PG_PER_WEEK_MAX,
    CalledCheck,
    Category,
    Disease,
    Illness,
    Wound,
    WoundKind,
    disease_errors,
)

logger = logging.getLogger(__name__)

FORMAT = "12plus-campaign"
VERSION = 1
DOCUMENT_BYTES = 5 * 1024 * 1024  # a campaign with years of play is well under 1 MB
TEXT_LENGTH = 10_000  # any one text in the document: twice the longest that the actions write (notes, NOTES_LENGTH)
DEPTH = 24  # nesting of the document: ours is 8 deep at most
BIGINT = 2**63 - 1  # PostgreSQL's bigint: clocks and campaign seconds
INTEGER = 2**31 - 1  # PostgreSQL's integer: PG amounts and counts
DISEASE_KINDS = {
    EventKind.DISEASE_ADDED,
    EventKind.DISEASE_EDITED,
    EventKind.DISEASE_RETIRED,
    EventKind.DISEASE_RESTORED,
}
PEOPLE = ("player_id", "gm_id")  # account ids in an edit's changes: not in the document (accounts are per site)


# --- creating ---------------------------------------------------------------------------------------------------------


def _room_for_one_more(gm: User) -> None:
    """The per-account cap, under a lock on the account's row so that two creations at once cannot both pass it."""
    User.objects.select_for_update().filter(pk=gm.pk).first()
    running = Campaign.objects.filter(gm=gm).count()
    if running >= settings.CAMPAIGNS_PER_USER:
        message = _("Ya llevas %(n)s campañas, el máximo de este sitio. Borra o exporta una antes de crear otra.")
        raise ActionError(message % {"n": running})


@transaction.atomic
def create_campaign(name: str, gm: User) -> Campaign:
    """A new, empty campaign run by `gm`, at campaign second 0."""
    name = checked_name(name, NAME_LENGTH)
    _room_for_one_more(gm)
    return Campaign.objects.create(name=name, gm=gm)


# --- deleting ---------------------------------------------------------------------------------------------------------


@transaction.atomic
def delete_campaign(campaign: Campaign | int, *, by: Actor, typed_name: str | None) -> None:
    """Delete a campaign and everything in it: its log, characters (removed ones too), wounds, illnesses, own diseases,
    players and invitation links. The GM confirms by typing its name (`typed_name`); None means the site admin
    confirmed on the admin's own page. Open screens of the campaign end their live stream."""
    campaign = lock_campaign(campaign)  # gone meanwhile: "Esta campaña ya no existe."
    if typed_name is not None and typed_name.strip() != campaign.name:
        raise ActionError(_("Escribe el nombre exacto de la campaña para borrarla."), "name")
    # An episode protects its disease from deletion (history points at it): the episodes go first, then the rest,
    # characters with the removed ones, by cascade.
    Illness.objects.filter(character__campaign=campaign).delete()
    CalledCheck.objects.filter(campaign=campaign).delete()  # a resistance check points at its disease too
    campaign_id, name = campaign.pk, campaign.name
    campaign.delete()
    notify.send(campaign_id, None)  # its watchers find it gone (access.still_sees) and their streams end
    logger.info("campaign %s «%s» deleted by %s", campaign_id, name, getattr(by, "username", None))


# --- document-local keys ----------------------------------------------------------------------------------------------

# A mapper turns one reference of a kind ("character", "disease", "event", "user", "invitation") into the other side's:
# a row id into a key on export, a key into a new row's id on import.
type Mapper = Callable[[str, Any], Any]


def _map_disease_key(value: Any, m: Mapper) -> Any:
    """The engine's identity of an illness, "disease:<id>" in the database and "disease:<key>" in the document."""
    if value is None or value == "":
        return value
    if not isinstance(value, str) or not value.startswith("disease:"):
        raise ValueError(value)
    return f"disease:{m('disease', value.removeprefix('disease:'))}"


def _map_state(state: dict[str, Any], m: Mapper) -> dict[str, Any]:
    return {
        **state,
        "wounds": [{**w, "illness_key": _map_disease_key(w.get("illness_key"), m)} for w in state["wounds"]],
        "illnesses": [{**i, "key": _map_disease_key(i.get("key"), m)} for i in state["illnesses"]],
    }


def _map_states(states: dict[str, Any], m: Mapper) -> dict[str, Any]:
    return {str(m("character", pk)): _map_state(state, m) for pk, state in _object(states).items()}


def _map_details(action: str, details: dict[str, Any], m: Mapper) -> dict[str, Any]:
    """Every id an event's details carry (rules.actions): characters in the damage, PG, rolls, lists of who rested,
    fell ill or was skipped, and the healer; a campaign disease; the undone event, with its own details; and account
    and invitation ids, which the document leaves out."""
    d = dict(_object(details))

    def character(value: Any) -> Any:
        return m("character", value)

    for name in ("damage", "pg"):
        if name in d:
            d[name] = {str(character(pk)): value for pk, value in _object(d[name]).items()}
    for name in ("skipped", "resting", "fell_ill"):
        if name in d:
            d[name] = [character(pk) for pk in _array(d[name])]
    if "rolls" in d:
        d["rolls"] = [_map_roll(_object(roll), m) for roll in _array(d["rolls"])]
    if "healer" in d:
        d["healer"] = character(d["healer"])
    if "revoked" in d:
        d["revoked"] = [m("invitation", pk) for pk in _array(d["revoked"])]
    if "invitation" in d:
        d["invitation"] = m("invitation", d["invitation"])
    if action in DISEASE_KINDS and "disease" in d:
        d["disease"] = m("disease", d["disease"])
    if "changes" in d:
        d["changes"] = {
            field: [m("user", pk) for pk in _array(pair)] if field in PEOPLE else pair
            for field, pair in _object(d["changes"]).items()
        }
    if action == EventKind.UNDO:
        # Read as play.log reads them: an event of an older version may lack a part.
        if "event" in d:
            d["event"] = m("event", d["event"])
        if "undone" in d:
            undone = _object(d["undone"])
            d["undone"] = {
                **undone,
                "details": _map_details(d.get("action", ""), undone.get("details", {}), m),
                "characters": [character(pk) for pk in _array(undone.get("characters", []))],
            }
    return d


def _map_roll(roll: dict[str, Any], m: Mapper) -> dict[str, Any]:
    return {**roll, "character": m("character", roll["character"])} if "character" in roll else roll


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(value)
    return value


def _array(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(value)
    return value


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


# --- exporting --------------------------------------------------------------------------------------------------------


def _stamp(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def export_campaign(campaign: Campaign) -> dict[str, Any]:
    """The whole campaign as one JSON-able document (see the module's docstring)."""
    characters = list(Character.everyone.filter(campaign=campaign).order_by("id"))
    wounds = list(Wound.objects.filter(character__campaign=campaign).order_by("id"))
    illnesses = list(Illness.objects.filter(character__campaign=campaign).order_by("id"))
    events = list(campaign.events.select_related("actor", "undone_by").order_by("id"))
    own = list(Disease.objects.filter(campaign=campaign).order_by("id"))
    keys = {
        "character": _Keys("c", (c.pk for c in characters)),
        "disease": _Keys("d", (d.pk for d in own)),
        "event": _Keys("e", (e.pk for e in events)),
    }

    def seen(what: str, value: Any) -> Any:
        if what in keys:
            keys[what].seen.add(int(value))
        return value

    def key(what: str, value: Any) -> Any:
        return keys[what].keys[int(value)] if what in keys else None

    def walk(m: Mapper) -> tuple[list[Any], list[Any], list[dict[str, Any]]]:
        wound_keys = [_map_disease_key(w.illness_key, m) for w in wounds]
        disease_keys = [m("disease", i.disease_id) for i in illnesses]
        log = [
            {
                "characters": [m("character", pk) for pk in e.characters],
                "details": _map_details(e.action, e.details, m),
                "before": _map_states(e.before, m),
                "after": _map_states(e.after, m),
            }
            for e in events
        ]
        return wound_keys, disease_keys, log

    walk(seen)  # first every id the campaign mentions, so the site's diseases and the gone ones get their keys
    site = list(Disease.objects.filter(pk__in=keys["disease"].unknown()).order_by("id"))
    keys["disease"].add(d.pk for d in site)
    missing = {what: keys[what].add(keys[what].unknown()) for what in ("character", "disease", "event")}
    wound_keys, disease_keys, log = walk(key)
    wounds_of: dict[int, list[dict[str, Any]]] = {c.pk: [] for c in characters}
    for w, illness_key in zip(wounds, wound_keys, strict=True):
        # A row standing for a run of equal wounds (rules.mapping) is written out as its wounds, one by one.
        wounds_of[w.character_id] += [
            {
                "kind": w.kind,
                "amount": w.amount,
                "remaining": w.remaining,
                "treated": w.treated,
                "inflicted_at": at,
                "illness_key": illness_key,
            }
            for at in mapping.moments(w.inflicted_at, w.times, w.every)
        ]
    illnesses_of: dict[int, list[dict[str, Any]]] = {c.pk: [] for c in characters}
    for i, disease_key in zip(illnesses, disease_keys, strict=True):
        illnesses_of[i.character_id].append(
            {
                "disease": disease_key,
                "category": i.category,
                "penalty": i.penalty,
                "pg_per_week": i.pg_per_week,
                "since": i.since,
                "treated": i.treated,
                "medicated": i.medicated,
                "cured_at": i.cured_at,
                "weeks_charged": i.weeks_charged,
            }
        )

    def scope(disease: Disease) -> str:
        if disease.campaign_id == campaign.pk:
            return "campaign"
        return "builtin" if disease.builtin else "site"

    return {
        "format": FORMAT,
        "version": VERSION,
        "campaign": {
            "name": campaign.name,
            "clock": campaign.clock,
            "created": _stamp(campaign.created),
            "party_view": campaign.party_view,
        },
        "diseases": [
            {
                "key": keys["disease"].keys[d.pk],
                "scope": scope(d),
                "name": d.name,
                "category": d.category,
                "penalty": d.penalty,
                "pg_per_week": d.pg_per_week,
                "retired": d.retired,
            }
            for d in [*own, *site]
        ],
        "characters": [
            {
                "key": keys["character"].keys[c.pk],
                "name": c.name,
                "constitution": c.constitution,
                "jump": c.jump,
                "heal_wounds": c.heal_wounds,
                "weight_kg": c.weight_kg,
                "notes": c.notes,
                "party_view": c.party_view,
                "pg": c.pg,
                "died_at": c.died_at,
                "recovery_progress": c.recovery_progress,
                "protection": c.protection,
                "removed": c.removed,
                "created": _stamp(c.created),
                "wounds": wounds_of[c.pk],
                "illnesses": illnesses_of[c.pk],
            }
            for c in characters
        ],
        "events": [
            {
                "key": keys["event"].keys[e.pk],
                "action": e.action,
                "actor": e.actor.username if e.actor else None,
                "clock_before": e.clock_before,
                "clock_after": e.clock_after,
                "created": _stamp(e.created),
                **mapped,
                "undone": e.undone,
                "undone_at": _stamp(e.undone_at),
                "undone_by": e.undone_by.username if e.undone_by else None,
            }
            for e, mapped in zip(events, log, strict=True)
        ],
        # What the log mentions that no longer exists (a disease whose adding was undone): keys that name no row.
        "missing": missing,
    }


# --- reading and checking a document ----------------------------------------------------------------------------------


def _refused(path: str, problem: str) -> ActionError:
    return ActionError(_("La copia no es válida: %(path)s: %(problem)s") % {"path": path, "problem": problem}, "file")


def _no_constant(name: str) -> None:
    raise ValueError(name)  # NaN and Infinity: not JSON, and PostgreSQL refuses them


def read_document(data: bytes) -> dict[str, Any]:
    """The document in an uploaded file: at most DOCUMENT_BYTES of UTF-8 JSON holding one object."""
    if len(data) > DOCUMENT_BYTES:
        message = _("El archivo pasa de %(mb)s MB: no es una copia de una campaña de este sitio.")
        raise ActionError(message % {"mb": DOCUMENT_BYTES // (1024 * 1024)}, "file")
    try:
        document = json.loads(data.decode("utf-8-sig"), parse_constant=_no_constant)
    except UnicodeDecodeError as error:
        raise ActionError(_("El archivo no es texto UTF-8: no es una copia de una campaña."), "file") from error
    except (ValueError, RecursionError) as error:
        raise ActionError(_("El archivo no es JSON válido: no es una copia de una campaña."), "file") from error
    if not isinstance(document, dict):
        raise ActionError(_("Este archivo no es una copia de una campaña de 12Plus."), "file")
    return document


def _sane(value: Any, path: str, depth: int = 0) -> None:
    """What PostgreSQL and the pages need of any value in the document: no NUL or broken characters in text, no text
    longer than TEXT_LENGTH, numbers that fit a bigint, and no deeper nesting than ours."""
    if depth > DEPTH:
        raise _refused(path, _("está anidado demasiado hondo."))
    if isinstance(value, str):
        if len(value) > TEXT_LENGTH:
            raise _refused(path, _("es un texto demasiado largo."))
        if "\x00" in value:
            raise _refused(path, _("contiene un carácter nulo."))
        try:
            value.encode()
        except UnicodeEncodeError as error:
            raise _refused(path, _("contiene caracteres no válidos.")) from error
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if not -BIGINT <= value <= BIGINT:
            raise _refused(path, _("es un número demasiado grande."))
    elif isinstance(value, float):
        return
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _sane(item, f"{path}[{index}]", depth + 1)
    elif isinstance(value, dict):
        for name, item in value.items():
            _sane(name, path, depth + 1)
            _sane(item, f"{path}.{name}", depth + 1)


class _Reader:
    """Typed reads of one JSON object of the document, each refused with its path and what was wrong."""

    def __init__(self, data: Any, path: str) -> None:
        if not isinstance(data, dict):
            raise _refused(path, _("debe ser un objeto JSON."))
        self.data = data
        self.path = path

    def at(self, name: str) -> str:
        return f"{self.path}.{name}"

    def get(self, name: str) -> Any:
        if name not in self.data:
            raise _refused(self.path, _("no tiene «%(name)s».") % {"name": name})
        return self.data[name]

    def integer(self, name: str, low: int, high: int, optional: bool = False) -> Any:
        value = self.get(name)
        if optional and value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            problem = _("debe ser un número entero entre %(low)s y %(high)s.") % {"low": low, "high": high}
            raise _refused(self.at(name), problem)
        return value

    def whole(self, name: str, optional: bool = False) -> Any:
        """A whole number of any size (the document's are bigints at most): its range is for the caller to judge."""
        value = self.get(name)
        if optional and value is None:
            return None
        if type(value) is not int:
            raise _refused(self.at(name), _("debe ser un número entero."))
        return value

    def boolean(self, name: str) -> bool:
        value = self.get(name)
        if not isinstance(value, bool):
            raise _refused(self.at(name), _("debe ser true o false."))
        return value

    def text(self, name: str, longest: int = TEXT_LENGTH, optional: bool = False) -> Any:
        value = self.get(name)
        if optional and value is None:
            return None
        if not isinstance(value, str) or len(value) > longest:
            raise _refused(self.at(name), _("debe ser un texto de hasta %(max)s caracteres.") % {"max": longest})
        return value

    def name(self, name: str, longest: int) -> str:
        value = self.text(name, longest)
        try:
            return checked_name(value, longest)
        except ActionError as error:
            problem = _("debe ser un nombre de 1 a %(max)s caracteres.") % {"max": longest}
            raise _refused(self.at(name), problem) from error

    def choice(self, name: str, choices: Iterable[str], default: str | None = None) -> str:
        """One of `choices`; a member the document may leave out (one added to the format later) gives `default`."""
        if default is not None and name not in self.data:
            return default
        value = self.get(name)
        allowed = list(choices)
        if value not in allowed:
            shown = ", ".join(choice or '""' for choice in allowed)
            raise _refused(self.at(name), _("debe ser uno de: %(choices)s.") % {"choices": shown})
        return str(value)

    def array(self, name: str) -> list[Any]:
        value = self.get(name)
        if not isinstance(value, list):
            raise _refused(self.at(name), _("debe ser una lista."))
        return value

    def moment(self, name: str) -> datetime:
        value = self.get(name)
        try:
            moment = datetime.fromisoformat(value)
        except (TypeError, ValueError) as error:
            raise _refused(self.at(name), _("debe ser una fecha y hora ISO 8601.")) from error
        if moment.tzinfo is None:
            raise _refused(self.at(name), _("debe llevar su zona horaria."))
        return moment

    def optional_moment(self, name: str) -> datetime | None:
        return None if self.get(name) is None else self.moment(name)

    def objects(self, name: str) -> list[_Reader]:
        return [_Reader(item, f"{self.at(name)}[{index}]") for index, item in enumerate(self.array(name))]


def _health(path: str, state: dict[str, Any]) -> engine.Health:
    """An engine state of the log, checked by the engine itself and within the columns it is stored in."""
    try:
        health = mapping.from_json(state)
        flags = [w["treated"] for w in state["wounds"]]
        flags += [i[flag] for i in state["illnesses"] for flag in ("treated", "medicated")]
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise _refused(path, _("no es un estado de salud válido.")) from error
    too_big = [w.amount for w in health.wounds if w.amount > INTEGER]
    too_big += [i.weeks_charged for i in health.illnesses if i.weeks_charged > INTEGER]
    out = [i for i in health.illnesses if i.penalty < PENALTY_MIN or i.pg_per_week > PG_PER_WEEK_MAX]
    if too_big or out or not all(isinstance(flag, bool) for flag in flags):
        raise _refused(path, _("no es un estado de salud válido."))
    return health


# What each log entry reads in its details (play.log), by event kind.
TEXTS: dict[str, tuple[str, ...]] = {
    EventKind.EXPOSE: ("disease",),
    EventKind.CHECK_CALLED: ("check",),
    EventKind.CHECK_CANCELLED: ("check",),
    EventKind.TREAT_WOUNDS: ("healer_name",),
    EventKind.TREAT_ILLNESS: ("healer_name", "disease"),
    EventKind.MEDICATE: ("disease",),
    EventKind.CHARACTER_ADDED: ("name",),
    EventKind.CHARACTER_EDITED: ("name",),
    EventKind.CHARACTER_REMOVED: ("name",),
    EventKind.INVITATION_CREATED: ("name",),
    EventKind.INVITATION_REVOKED: ("name",),
    EventKind.INVITATION_CLAIMED: ("name", "player"),
    EventKind.DISEASE_ADDED: ("name",),
    EventKind.DISEASE_EDITED: ("name",),
    EventKind.DISEASE_RETIRED: ("name",),
    EventKind.DISEASE_RESTORED: ("name",),
}
ABOUT_ONE = {EventKind.TREAT_WOUNDS, EventKind.TREAT_ILLNESS, EventKind.MEDICATE, EventKind.EXERTION}
NUMBERS = ("seconds", "turns", "speed_kmh", "height_m", "weight_kg", "difficulty")
# What an edit may change, by kind: the fields its undo puts back (rules.actions.sheet and diseases).
CHANGED_FIELDS: dict[str, tuple[str, ...]] = {
    EventKind.CHARACTER_EDITED: SHEET_FIELDS,
    EventKind.DISEASE_EDITED: tuple(field.name for field in fields(DiseaseSheet)),
    EventKind.CAMPAIGN_EDITED: ("name", "gm_id", "party_view"),
}
INVITATION_KINDS = {EventKind.INVITATION_CREATED, EventKind.INVITATION_REVOKED, EventKind.INVITATION_CLAIMED}


def _check_details(path: str, action: str, raw: Any, characters: list[Any]) -> None:
    """The details of one event hold what its log entry and its undo read, of the right types and ranges."""
    details = _Reader(raw, path)
    for name in TEXTS.get(action, ()):
        details.text(name)
    for name in NUMBERS:
        if name in raw or (name == "seconds" and action == EventKind.ADVANCE):
            details.integer(name, 0, BIGINT)
    if "height_m" in raw:
        details.integer("difficulty", 0, BIGINT)  # a fall's entry says both
    if "dice" in raw:
        _Reader(raw["dice"], details.at("dice")).text("detail")
    if action in ABOUT_ONE and not characters:
        raise _refused(path, _("no dice de qué personaje trata."))
    if action == EventKind.CHARACTER_EDITED and len(characters) != 1:
        raise _refused(path, _("debe tratar de un solo personaje."))
    for name in ("damage", "pg"):
        for value in _Reader(raw.get(name, {}), details.at(name)).data.values():
            pair = value if name == "pg" else [value, 0]
            if not (isinstance(pair, list) and len(pair) == 2 and all(type(v) is int for v in pair)):
                raise _refused(details.at(name), _("debe dar números enteros de PG."))
    if "pg" in raw and not set(raw.get("damage", {})) <= set(raw["pg"]):
        raise _refused(details.at("pg"), _("no da el PG de cada personaje dañado."))
    for roll in details.objects("rolls") if "rolls" in raw else []:
        roll.get("character")
        roll.text("check")
        roll.text("name")
        if not roll.data.get("protected"):
            for name in ("sides", "die", "modifier", "total", "difficulty"):
                roll.integer(name, -BIGINT, BIGINT)
            roll.boolean("success")
            penalties = roll.array("penalties")
            if not all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) and type(p[1]) is int for p in penalties
            ):
                raise _refused(roll.at("penalties"), _("debe ser una lista de pares [nombre, número]."))
    if action in CHANGED_FIELDS:
        _check_changes(details.at("changes"), action, details.get("changes"))
    if action in INVITATION_KINDS:
        details.get("invitation")
    for name in ("players", "gms"):
        if name in raw:
            people = raw[name]
            if not (isinstance(people, list) and len(people) == 2 and all(isinstance(p, str) for p in people)):
                raise _refused(details.at(name), _("debe ser un par de nombres."))
    if action == EventKind.UNDO:
        kind = details.choice("action", [k for k in EventKind.values if k != EventKind.UNDO])
        undone = _Reader(details.get("undone"), details.at("undone"))
        _check_details(undone.at("details"), kind, undone.get("details"), undone.array("characters"))


def _check_changes(path: str, action: str, raw: Any) -> None:
    allowed = CHANGED_FIELDS[action]
    for field, pair in _Reader(raw, path).data.items():
        if field not in allowed or not (isinstance(pair, list) and len(pair) == 2):
            raise _refused(f"{path}.{field}", _("no es un cambio válido."))
        if not all(_changed_value(action, field, value) for value in pair):
            raise _refused(f"{path}.{field}", _("no es un cambio válido."))


def _changed_value(action: str, field: str, value: Any) -> bool:
    """One side of a change as its action stores it. A disease's numbers are judged together, with the rest of the
    disease, where its undo would put them back (_check_undos)."""
    if field in PEOPLE:
        return value is None  # accounts are not in the document
    if field in SHEET_RANGES:
        low, high = SHEET_RANGES[field]
        return type(value) is int and low <= value <= high
    if field == "name":
        if not isinstance(value, str):
            return False
        try:
            return (
                checked_name(value, DISEASE_NAME_LENGTH if action == EventKind.DISEASE_EDITED else NAME_LENGTH) == value
            )
        except ActionError:
            return False
    if field == "notes":
        return isinstance(value, str) and len(value) <= NOTES_LENGTH
    if field == "party_view":
        # A campaign always has one of its own; a character may also have none (the campaign's).
        allowed = PartyView.values if action == EventKind.CAMPAIGN_EDITED else CHARACTER_PARTY_VIEWS
        return isinstance(value, str) and value in allowed
    if field == "category":
        return value in Category.values
    if field == "penalty":
        return type(value) is int
    if field == "pg_per_week":
        return value is None or (type(value) is int and value >= 1)  # as its column keeps it: null for none
    return False


def _check_undos(
    paths: list[str],
    events: list[Event],
    characters: list[tuple[Character, list[Wound], list[Illness]]],
    diseases: list[Disease],
    campaign: Campaign,
) -> None:
    """What undoing the log will write fits the rows it writes to: the log is walked backwards from the rows of the
    document, as rules.actions.undo walks it (the latest event not undone first), keeping what an undo meets — each
    character's CON and its wounds' amounts, how many illnesses it has, each own disease's sheet."""
    constitution = {row.pk: row.constitution for row, _wounds, _illnesses in characters}
    amounts = {row.pk: [wound.amount for wound in wounds] for row, wounds, _illnesses in characters}
    episodes = {row.pk: len(illnesses) for row, _wounds, illnesses in characters}
    known = {row.pk for row in diseases}
    own = {row.pk: asdict(DiseaseSheet.of(row)) for row in diseases if row.campaign_id == campaign.pk}
    for path, event in reversed(list(zip(paths, events, strict=True))):
        if event.undone or event.action == EventKind.UNDO:
            continue
        for key, state in event.before.items():
            pk = int(key)
            if pk not in amounts:
                continue  # not a character of the document: the undo refuses it
            health = mapping.from_json(state)
            now = amounts[pk]
            # A wound's row keeps its first amount; the undo writes what remains of it, never more.
            if any(wound.amount > amount for wound, amount in zip(health.wounds, now, strict=False)):
                raise _refused(f"{path}.before", _("no cuadra con las heridas de su personaje."))
            amounts[pk] = now[: len(health.wounds)] + [wound.amount for wound in health.wounds[len(now) :]]
            # An illness the undo brings back becomes a row again: its disease must be one.
            if any(_disease_of(illness) not in known for illness in health.illnesses[episodes[pk] :]):
                raise _refused(f"{path}.before", _("no nombra una enfermedad de la copia."))
            episodes[pk] = len(health.illnesses)
        details = event.details
        if event.action == EventKind.CHARACTER_EDITED:
            [pk] = event.characters
            before, after = event.before.get(str(pk)), event.after.get(str(pk))
            if pk not in constitution or before is None or after is None or len(event.before) != 1:
                raise _refused(path, _("no cuadra con la hoja de su personaje."))
            pair = [before["constitution"], after["constitution"]]
            if pair != details["changes"].get("constitution", [pair[1], pair[1]]) or pair[1] != constitution[pk]:
                raise _refused(path, _("no cuadra con la hoja de su personaje."))
            constitution[pk] = pair[0]
        if event.action in DISEASE_KINDS:
            sheet = own.get(details.get("disease"))
            if sheet is None:
                raise _refused(f"{path}.details", _("no nombra una enfermedad propia de la campaña."))
            if event.action == EventKind.DISEASE_EDITED:
                sheet.update({field: old for field, (old, _new) in details["changes"].items()})
                for field, message in disease_errors(sheet["category"], sheet["penalty"], sheet["pg_per_week"]).items():
                    raise _refused(f"{path}.details.changes.{field}", message)
            if event.action == EventKind.DISEASE_ADDED:
                del own[details["disease"]]


def _disease_of(illness: engine.Illness) -> int | None:
    try:
        return mapping.disease_id(illness)
    except ValueError:
        return None


# --- importing --------------------------------------------------------------------------------------------------------


class _Dangling(Exception):
    def __init__(self, what: str, value: Any) -> None:
        super().__init__(what, value)
        self.what = what
        self.value = value


def _reserve_ids(model: type[Campaign] | type[Character] | type[Disease] | type[Event], count: int) -> list[int]:
    """New ids for rows made at once, known before they are written: the log refers to them, and to one another."""
    if count == 0:
        return []
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s) ORDER BY 1", [table, count]
        )
        return [row[0] for row in cursor.fetchall()]


def _unique_keys(items: list[_Reader], path: str) -> list[str]:
    keys = [item.text("key", 20) for item in items]
    if len(set(keys)) != len(keys):
        raise _refused(path, _("repite una clave."))
    return keys


@transaction.atomic
def import_campaign(document: dict[str, Any], gm: User) -> Campaign:
    """A new campaign run by `gm` from an exported document: checked in full first — any problem is an ActionError
    naming where it is, and nothing is written."""
    _sane(document, "$")
    top = _Reader(document, "$")
    if document.get("format") != FORMAT:
        raise ActionError(_("Este archivo no es una copia de una campaña de 12Plus."), "file")
    if document.get("version") != VERSION:
        message = _("Esta copia es de la versión %(version)s del formato; este sitio lee la versión %(supported)s.")
        raise ActionError(message % {"version": document.get("version"), "supported": VERSION}, "file")
    head = _Reader(top.get("campaign"), "$.campaign")
    name = head.name("name", NAME_LENGTH)
    clock = head.integer("clock", 0, BIGINT)
    created = head.moment("created")
    party_view = head.choice("party_view", PartyView.values, default=PartyView.BAND)

    diseases = top.objects("diseases")
    characters = top.objects("characters")
    events = top.objects("events")
    missing = _Reader(top.get("missing"), "$.missing")
    disease_keys = _unique_keys(diseases, "$.diseases")
    character_keys = _unique_keys(characters, "$.characters")
    event_keys = _unique_keys(events, "$.events")
    gone = {what: missing.array(what) for what in ("character", "disease", "event")}
    in_play = sum(1 for c in characters if not c.boolean("removed"))
    if in_play > settings.CHARACTERS_PER_CAMPAIGN:
        message = _("La copia tiene %(n)s personajes en juego; este sitio admite %(max)s por campaña.")
        raise ActionError(message % {"n": in_play, "max": settings.CHARACTERS_PER_CAMPAIGN}, "file")

    _room_for_one_more(gm)
    Disease.objects.ensure_builtin()
    campaign = Campaign.objects.create(name=name, gm=gm, clock=clock, party_view=party_view)
    Campaign.objects.filter(pk=campaign.pk).update(created=created)
    campaign.created = created

    # Ids first, so that every reference of the log can be turned into one before anything else is written.
    ids: dict[str, dict[str, int]] = {
        "character": dict(zip(character_keys, _reserve_ids(Character, len(characters)), strict=True)),
        "event": dict(zip(event_keys, _reserve_ids(Event, len(events)), strict=True)),
    }
    disease_rows = [_disease(campaign, reader) for reader in diseases]
    new_own = [row for row in disease_rows if row.pk is None]
    for row, pk in zip(new_own, _reserve_ids(Disease, len(new_own)), strict=True):
        row.pk = pk
    ids["disease"] = {key: row.pk for key, row in zip(disease_keys, disease_rows, strict=True)}
    for what, keys in gone.items():
        # Keys that name no row get ids no row has, in the same order (an export numbers them alike again).
        if not all(isinstance(key, str) for key in keys):
            raise _refused(f"$.missing.{what}", _("debe ser una lista de claves."))
        if set(keys) & set(ids[what]) or len(set(keys)) != len(keys):
            raise _refused(f"$.missing.{what}", _("repite una clave."))
        ids[what].update({key: index - len(keys) for index, key in enumerate(keys)})
    Disease.objects.bulk_create(new_own)
    for row, reader in zip(disease_rows, diseases, strict=True):
        # Two active diseases with one name would be ambiguous in the GM's "expose" list, the site's ones included.
        if row.campaign_id == campaign.pk and not row.retired and name_taken(campaign, row.name, exclude=row.pk):
            raise _refused(reader.at("name"), _("es el nombre de otra enfermedad activa en la campaña."))

    def to_id(what: str, value: Any) -> Any:
        if what in ("user", "invitation"):
            if value is not None:
                raise _Dangling(what, value)
            return None
        if not isinstance(value, str) or value not in ids[what]:
            raise _Dangling(what, value)
        return ids[what][value]

    rows = [_character(campaign, reader, to_id, ids["character"]) for reader in characters]
    _with_created(Character, [row for row, _w, _i in rows])
    Wound.objects.bulk_create([w for _row, wounds, _i in rows for w in wounds])
    Illness.objects.bulk_create([i for _row, _w, illnesses in rows for i in illnesses])

    log = [_event(campaign, reader, to_id, gm, ids) for reader in events]
    _check_undos([reader.path for reader in events], log, rows, disease_rows, campaign)
    _with_created(Event, log)
    return campaign


def _with_created(model: type[Character] | type[Event], rows: list[Any]) -> None:
    """Insert rows keeping their `created` from the document (an insert sets it to now: auto_now_add)."""
    created = [row.created for row in rows]
    model._base_manager.bulk_create(rows)
    for row, moment in zip(rows, created, strict=True):
        row.created = moment
    model._base_manager.bulk_update(rows, ["created"])


def _disease(campaign: Campaign, reader: _Reader) -> Disease:
    """The campaign's own disease, new; or the site's disease it names (one made anew if this site lacks it)."""
    scope = reader.choice("scope", ["campaign", "builtin", "site"])
    sheet = {
        "name": reader.name("name", DISEASE_NAME_LENGTH),
        "category": reader.choice("category", Category.values),
        "penalty": reader.whole("penalty"),
        # Null for none, as the column keeps it (a common disease's 0 means the same); disease_errors judges the rest.
        "pg_per_week": reader.whole("pg_per_week", optional=True) or None,
    }
    retired = reader.boolean("retired")
    for field, message in disease_errors(sheet["category"], sheet["penalty"], sheet["pg_per_week"]).items():
        raise _refused(reader.at(field), message)
    if scope != "campaign":
        found = (
            Disease.objects.filter(campaign=None, builtin=scope == "builtin", name=sheet["name"]).order_by("id").first()
        )
        if found is not None:
            return found
        if scope == "builtin":
            raise _refused(reader.at("name"), _("no es una enfermedad del reglamento."))
    return Disease(campaign=campaign, retired=retired, **sheet)


def _character(
    campaign: Campaign, reader: _Reader, to_id: Mapper, keys: dict[str, int]
) -> tuple[Character, list[Wound], list[Illness]]:
    """One character with its wounds and illnesses; its PG and death must be what the engine makes of them."""
    row = Character(
        pk=keys[reader.text("key", 20)],
        campaign=campaign,
        name=reader.name("name", NAME_LENGTH),
        **{field: reader.integer(field, *SHEET_RANGES[field]) for field in SHEET_RANGES},
        notes=reader.text("notes", NOTES_LENGTH),
        party_view=reader.choice("party_view", CHARACTER_PARTY_VIEWS, default=""),
        pg=reader.integer("pg", 0, engine.max_pg(engine.CON_MAX)),
        died_at=reader.integer("died_at", 0, BIGINT, optional=True),
        recovery_progress=_Reader(reader.get("recovery_progress"), reader.at("recovery_progress")).data,
        protection=reader.array("protection"),
        removed=reader.boolean("removed"),
        created=reader.moment("created"),
    )
    wounds = []
    for wound in reader.objects("wounds"):
        amount = wound.integer("amount", 0, INTEGER)
        try:
            illness_key = _map_disease_key(wound.text("illness_key", 40), to_id)
        except (_Dangling, ValueError) as error:
            raise _refused(wound.at("illness_key"), _("no nombra una enfermedad de la copia.")) from error
        wounds.append(
            Wound(
                character=row,
                kind=wound.choice("kind", WoundKind.values),
                amount=amount,
                remaining=wound.integer("remaining", 0, amount),
                treated=wound.boolean("treated"),
                inflicted_at=wound.integer("inflicted_at", 0, BIGINT),
                illness_key=illness_key,
            )
        )
    illnesses = []
    for illness in reader.objects("illnesses"):
        try:
            disease_id = to_id("disease", illness.get("disease"))
        except _Dangling as error:
            raise _refused(illness.at("disease"), _("no nombra una enfermedad de la copia.")) from error
        if disease_id < 0:
            raise _refused(illness.at("disease"), _("no nombra una enfermedad de la copia."))
        illnesses.append(
            Illness(
                character=row,
                disease_id=disease_id,
                category=illness.choice("category", Category.values),
                penalty=illness.integer("penalty", PENALTY_MIN, 0),
                pg_per_week=illness.integer("pg_per_week", 0, PG_PER_WEEK_MAX),
                since=illness.integer("since", 0, BIGINT),
                treated=illness.boolean("treated"),
                medicated=illness.boolean("medicated"),
                cured_at=illness.integer("cured_at", 0, BIGINT, optional=True),
                weeks_charged=illness.integer("weeks_charged", 0, INTEGER),
            )
        )
    try:
        for episode in illnesses:
            episode.disease = Disease(pk=episode.disease_id, name="")  # only its id: the engine reads no name here
        health = mapping.health_of(row, wounds, illnesses, campaign.clock)
    except (ValueError, TypeError, AttributeError) as error:
        raise _refused(reader.path, _("no es un estado de salud válido.")) from error
    if (row.pg, row.died_at) != (health.pg, health.died_at):
        message = _("dice %(pg)s PG, pero sus heridas y su muerte dan %(engine)s.")
        raise _refused(reader.path, message % {"pg": row.pg, "engine": health.pg})
    return row, wounds, illnesses


def _event(campaign: Campaign, reader: _Reader, to_id: Mapper, gm: User, ids: dict[str, dict[str, int]]) -> Event:
    action = reader.choice("action", EventKind.values)
    characters = reader.array("characters")
    _check_details(reader.at("details"), action, reader.get("details"), characters)
    try:
        mapped: dict[str, Any] = {
            "characters": [to_id("character", key) for key in characters],
            "details": _map_details(action, reader.get("details"), to_id),
            "before": _map_states(reader.get("before"), to_id),
            "after": _map_states(reader.get("after"), to_id),
        }
    except _Dangling as dangling:
        message = _("nombra «%(key)s», que no está en la copia.") % {"key": str(dangling.value)[:40]}
        raise _refused(reader.path, message) from dangling
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise _refused(reader.path, _("no tiene la forma de un evento del registro.")) from error
    for side in ("before", "after"):
        for key, state in zip(reader.get(side), mapped[side].values(), strict=True):
            _health(f"{reader.at(side)}.{key}", state)
    # Accounts do not travel (see the module's docstring): the importing GM's own name is the GM, any other nobody.
    actor, undone_by = reader.text("actor", 150, optional=True), reader.text("undone_by", 150, optional=True)
    return Event(
        pk=ids["event"][reader.text("key", 20)],
        campaign=campaign,
        action=action,
        actor_id=gm.pk if actor == gm.username else None,
        clock_before=reader.integer("clock_before", 0, BIGINT),
        clock_after=reader.integer("clock_after", 0, BIGINT),
        created=reader.moment("created"),
        undone=reader.boolean("undone"),
        undone_at=reader.optional_moment("undone_at"),
        undone_by_id=gm.pk if undone_by == gm.username else None,
        **mapped,
    )
