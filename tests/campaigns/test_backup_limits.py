"""Issue 48: every field of every log entry's details is bounded on import as the action that writes it bounds it
(rules.backup.limits), and every collection of a document by the site's caps, as the actions that make them are."""

from __future__ import annotations

import copy
import time
import types
from typing import Annotated, Any, TypeAliasType, Union, get_args, get_origin, get_type_hints

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from rules import actions, backup, events
from rules.backup import limits
from rules.damage import Attack
from rules.models import Disease
from tests.campaigns.documents import first_event, refusal, story, through_json
from tests.helpers import World, make_user


def leaves(hint: Any, refers: bool = False) -> set[tuple[Any, bool]]:
    """The scalar types a field's values may hold, each with whether it is a reference (rules.events.Refers)."""
    if isinstance(hint, TypeAliasType):
        return leaves(hint.__value__, refers)
    if get_origin(hint) is Annotated:
        refers = refers or any(isinstance(meta, events.Refers) for meta in hint.__metadata__)
        return leaves(hint.__origin__, refers)
    origin, args = get_origin(hint), get_args(hint)
    if origin is dict:
        return leaves(args[1], refers)  # a key is a reference or a name of the format
    if origin in (list, tuple, Union, types.UnionType):
        return {leaf for arg in args if arg is not type(None) for leaf in leaves(arg, refers)}
    return {(hint, refers)}


def records() -> set[type[events.Record]]:
    """Every record a payload is made of, the payloads themselves too."""
    found: set[type[events.Record]] = set()
    waiting: list[type[events.Record]] = list(events.PAYLOADS.values())
    while waiting:
        record = waiting.pop()
        if record in found:
            continue
        found.add(record)
        for hint in get_type_hints(record, include_extras=True).values():
            waiting += [leaf for leaf, _ in leaves(hint) if isinstance(leaf, type) and issubclass(leaf, events.Record)]
    return found


def test_every_field_that_holds_text_or_a_number_is_bounded():
    unbounded = []
    for record in records():
        for name, hint in get_type_hints(record, include_extras=True).items():
            scalar = {leaf for leaf, refers in leaves(hint) if not refers and leaf in (str, int, Any)}
            if scalar and name not in limits.FIELDS.get(record, {}):
                unbounded.append(f"{record.__name__}.{name}")
    assert unbounded == []
    for record, fields in limits.FIELDS.items():  # and no bound of a field that is not there
        assert set(fields) <= set(record.__struct_fields__), record


@pytest.fixture
def document(world: World) -> dict[str, Any]:
    return through_json(backup.export_campaign(story(world)))


def entry_of(document: dict[str, Any], action: str, has: str) -> tuple[int, dict[str, Any]]:
    """The first entry of this kind whose details have `has` (a dotted path), and its details."""
    for index, entry in enumerate(document["events"]):
        if entry["action"] != action:
            continue
        try:
            found = entry["details"]
            for part in has.split("."):
                found = found[int(part) if isinstance(found, list) else part]
        except (KeyError, IndexError):
            continue
        return index, entry["details"]
    raise AssertionError(f"no {action} entry with {has}")


def put(details: dict[str, Any], path: str, value: Any) -> None:
    parts: list[Any] = [int(part) if part.isdigit() else part for part in path.split(".")]
    target: Any = details
    for part in parts[:-1]:
        target = target[part]
    target[parts[-1]] = value


NAME = "debe ser un nombre de 1 a 100 caracteres."
DISEASE = "debe ser un nombre de 1 a 80 caracteres."
ROLL = "no es una tirada que hagan las reglas: su dado, sus sumandos o su total no cuadran."


@pytest.mark.parametrize(
    ("action", "path", "value", "where", "problem"),
    [
        ("character_added", "name", "", "name", NAME),
        ("character_added", "name", " ", "name", NAME),
        ("character_added", "name", "x" * 10_000, "name", NAME),
        ("character_added", "name", "a" * 101, "name", NAME),
        ("character_added", "name", 7, "name", "debe ser un texto de hasta 10000 caracteres."),
        (
            "invitation_claimed",
            "player",
            "Carla Díaz!",
            "player",
            "debe ser un nombre de usuario de hasta 150 caracteres.",
        ),
        ("characters_added", "added.0.name", "", "added[0].name", NAME),
        ("treat_wounds", "healer_name", "x" * 101, "healer_name", NAME),
        ("expose", "disease", "", "disease", DISEASE),
        ("expose", "disease", "d" * 81, "disease", DISEASE),
        ("expose", "category", "grave", "category", 'debe ser uno de: "", common, serious.'),
        ("medicate", "disease", " Peste", "disease", DISEASE),
        ("disease_added", "name", "", "name", DISEASE),
        ("disease_edited", "changes.penalty.1", -21, "changes.penalty[1]", "debe ser un número entero entre -20 y 0."),
        ("disease_edited", "name", "x" * 81, "name", DISEASE),
        (
            "character_edited",
            "changes.constitution.1",
            31,
            "changes.constitution[1]",
            "debe ser un número entero entre 1 y 30.",
        ),
        ("campaign_edited", "changes.name.1", "", "changes.name[1]", NAME),
        (
            "campaign_edited",
            "changes.party_view.1",
            "todo",
            "changes.party_view[1]",
            "debe ser uno de: exact, band, hidden.",
        ),
        ("damage", "damage.c1", 1001, "damage.c1", "debe ser un número entero entre 0 y 1000."),
        ("damage", "height_m", 10_001, "height_m", "debe ser un número entero entre 0 y 10000."),
        ("damage", "pg.c1.1", 301, "pg.c1[1]", "debe ser un número entero entre 0 y 300."),
        ("damage", "dice.expression", "1" * 51, "dice.expression", "debe ser un texto de hasta 50 caracteres."),
        ("damage", "dice.total", 1001, "dice.total", "debe ser un número entero como mucho de 1000."),
        ("damage", "rolls.0.die", 0, "rolls[0].die", "debe ser un número entero entre 1 y 20."),
        ("damage", "rolls.0.total", 99, "rolls[0]", ROLL),
        ("damage", "rolls.0.success", True, "rolls[0]", ROLL),
        ("damage", "rolls.0.name", "", "rolls[0].name", NAME),
        ("damage", "call.by", "no es un usuario", "call.by", "debe ser un nombre de usuario de hasta 150 caracteres."),
        ("expose", "rolls.0.sides", 20, "rolls[0]", ROLL),
        ("check_called", "height_m", 10_001, "height_m", "debe ser un número entero entre 0 y 10000."),
        ("check_cancelled", "disease", "", "disease", DISEASE),
        ("co_gm_joined", "name", "", "name", "debe ser un nombre de usuario de hasta 150 caracteres."),
    ],
)
def test_a_field_holds_what_its_action_writes(document, action, path, value, where, problem):
    """Each refusal says where, in the GM's words; before issue 48 all of these were taken."""
    index, details = entry_of(document, action, path)
    put(details, path, value)
    assert refusal(document) == f"La copia no es válida: $.events[{index}].details.{where}: {problem}"


def test_an_exertion_loses_the_pg_it_says(world: World):
    a, gm, aldara = world.campaign_a, world.gm_a, world.char_a1
    actions.apply_damage(a, [aldara], Attack(amount=aldara.pg - 2), by=gm)
    actions.exertion(a, aldara, by=gm, die=1)
    document = through_json(backup.export_campaign(a))
    entry = first_event(document, "exertion")
    key = next(iter(entry["details"]["damage"]))
    entry["details"]["damage"][key] = 2
    index = document["events"].index(entry)
    assert (
        refusal(document) == f"La copia no es válida: $.events[{index}].details.damage.{key}: no son los PG que perdió."
    )


# --- the site's caps ----------------------------------------------------------------------------------------------


def test_a_copy_holds_no_more_than_the_site_lets_a_campaign_hold(document, settings):
    settings.NPC_TEMPLATES_PER_CAMPAIGN = 0
    assert refusal(copy.deepcopy(document)) == (
        "La copia no es válida: $.templates: son 2; este sitio admite como mucho 0 por campaña."
    )
    settings.NPC_TEMPLATES_PER_CAMPAIGN = 200
    settings.DISEASES_PER_CAMPAIGN = 0
    assert refusal(copy.deepcopy(document)) == (
        "La copia no es válida: $.diseases: son 1; este sitio admite como mucho 0 por campaña."
    )
    settings.DISEASES_PER_CAMPAIGN = 200
    settings.SESSIONS_PER_CAMPAIGN = 0
    assert refusal(copy.deepcopy(document)) == (
        "La copia no es válida: $.sessions: son 1; este sitio admite como mucho 0 por campaña."
    )
    without = copy.deepcopy(document)
    del without["sessions"]  # the log's own: its start is refused
    index, _details = entry_of(without, "session_started", "number")
    assert refusal(without) == (
        f"La copia no es válida: $.events[{index}].details.number: son 1; este sitio admite como mucho 0 por campaña."
    )


def test_the_log_never_holds_more_templates_than_the_site_lets(world: World, settings):
    a, gm = world.campaign_a, world.gm_a
    actions.save_template(a, actions.Sheet("Guardia", 6), 4, by=gm)
    actions.save_template(a, actions.Sheet("Bandido", 5), 3, by=gm)
    actions.delete_template(a, a.npc_templates.get(name="Bandido"), by=gm)
    document = through_json(backup.export_campaign(a))
    settings.NPC_TEMPLATES_PER_CAMPAIGN = 1  # its one template is in, but the log kept two at once
    index = next(n for n, e in enumerate(document["events"]) if e["details"].get("after", {}).get("name") == "Bandido")
    assert refusal(document) == (
        f"La copia no es válida: $.events[{index}].details: son 2; este sitio admite como mucho 1 por campaña."
    )


def test_a_group_is_no_larger_than_the_sites_cap_on_characters(document, settings):
    settings.CHARACTERS_PER_CAMPAIGN = 1
    index, _details = entry_of(document, "characters_added", "added")
    assert refusal(document) == (
        f"La copia no es válida: $.events[{index}].details.added: son 2; este sitio admite como mucho 1 por campaña."
    )


def test_a_70001_template_copy_is_refused_at_once(document):
    many = copy.deepcopy(document)
    many["templates"] = [{"name": f"Plantilla {n}", "count": 1, "constitution": 5} for n in range(70_001)]
    start = time.process_time()
    assert (
        refusal(many) == "La copia no es válida: $.templates: son 70001; este sitio admite como mucho 200 por campaña."
    )
    assert time.process_time() - start < 1.0


def imported_queries(world: World, diseases: int) -> int:
    """The queries an import of campaign A makes, after it has `diseases` diseases of its own and caught as many of
    the site's."""
    a, gm, aldara = world.campaign_a, world.gm_a, world.char_a1
    for n in range(diseases):
        actions.add_disease(a, actions.DiseaseSheet(f"Fiebre {diseases}.{n}", "common", -1), by=gm)
        site = Disease.objects.create(name=f"Viruela {diseases}.{n}", category="common", penalty=-1)
        actions.expose(a, [aldara], site, by=gm, dice_by_character={aldara.pk: 1})
    document = through_json(backup.export_campaign(a))
    with CaptureQueriesContext(connection) as queries:
        backup.import_campaign(document, make_user(f"importa{diseases}"))
    return len(queries)


def test_an_import_reads_the_sites_diseases_in_a_constant_number_of_queries(world: World):
    """Each site disease was looked for, and each own one's name compared with the others', in a query of its own."""
    one = imported_queries(world, 1)
    assert imported_queries(world, 4) == one
