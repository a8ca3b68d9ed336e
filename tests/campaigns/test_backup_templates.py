"""Issue 48, points 3, 4 and one of 13: an import is judged in time linear in its file (70,001 templates are refused in
well under a second of CPU, not after minutes); the log's template entries are checked as the form saves a template,
and the document's templates are the ones its log leaves; an entry of a kind that names no character names none; and
a copy of an imported campaign comes in under the campaign's name, not nested in another import's."""

from __future__ import annotations

import copy
import datetime
import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import translation

from campaigns.models import Campaign
from characters.models import NpcTemplate
from play.forms.campaigns import imported_name
from rules import actions, backup
from rules.backup.validate import validate
from tests.campaigns.documents import first_event, last_event, refusal, text, through_json
from tests.helpers import make_user


def with_templates() -> Campaign:
    """A campaign with a character, whose templates were saved, saved again, deleted, and a deletion undone; and a
    session started."""
    gm = make_user("gm")
    campaign = actions.create_campaign("Plantillas", gm)
    actions.add_character(campaign, actions.Sheet("Aldara", 8), by=gm)
    actions.save_template(campaign, actions.Sheet("Guardia", 6, jump=2), 4, by=gm)
    actions.save_template(campaign, actions.Sheet("Lobo # del bosque", 3, weight_kg=40), 6, by=gm)
    actions.save_template(campaign, actions.Sheet("Guardia", 7, jump=2, notes="Lanzas."), 5, by=gm)
    actions.delete_template(campaign, NpcTemplate.objects.get(campaign=campaign, name="Guardia"), by=gm)
    actions.undo(campaign, by=gm)
    actions.save_template(campaign, actions.Sheet("Bandido", 5), 3, by=gm)
    actions.delete_template(campaign, NpcTemplate.objects.get(campaign=campaign, name="Bandido"), by=gm)
    actions.start_session(campaign, by=gm)
    return campaign


@pytest.fixture
def document(db) -> dict[str, Any]:
    return through_json(backup.export_campaign(with_templates()))


def test_templates_travel_with_their_log(document):
    assert [t["name"] for t in document["templates"]] == ["Guardia", "Lobo # del bosque"]
    restored = backup.import_campaign(copy.deepcopy(document), make_user("otra"))
    assert text(through_json(backup.export_campaign(restored))) == text(document)
    actions.undo(restored, by=restored.gm)  # the session start, then the deletion of «Bandido»: it comes back
    actions.undo(restored, by=restored.gm)
    assert restored.npc_templates.get(name="Bandido").count == 3


def saved_again(document: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Where the log saves «Guardia» a second time, and that entry's details."""
    entry = next(e for e in document["events"] if e["details"].get("before", {}).get("name") == "Guardia")
    return document["events"].index(entry), entry["details"]


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("name", "", "debe ser un nombre de 1 a 100 caracteres."),
        ("name", " Guardia", "debe ser un nombre de 1 a 100 caracteres."),
        ("count", 0, "debe ser un número entero entre 1 y 60."),
        ("count", 61, "debe ser un número entero entre 1 y 60."),  # the site's cap on characters, as save_template's
        ("jump", 31, "debe ser un número entero entre 0 y 30."),
        ("constitution", 0, "debe ser un número entero entre 1 y 30."),
        ("party_view", "todo", 'debe ser uno de: "", exact, band, hidden.'),
        ("notes", "n" * 6000, "debe ser un texto de hasta 5000 caracteres."),
    ],
)
def test_a_template_in_the_log_is_one_the_form_could_save(document, field, value, problem):
    """The template an undo would write is checked as the form checks one: else one undo writes a template that the
    campaign's own export can no longer bring back."""
    index, details = saved_again(document)
    details["before"][field] = value
    assert refusal(document) == f"La copia no es válida: $.events[{index}].details.before.{field}: {problem}"


def test_the_log_of_templates_holds_together(document):
    index, details = saved_again(document)
    renamed = copy.deepcopy(document)
    renamed["events"][index]["details"]["after"]["name"] = "Guardia real"
    assert refusal(renamed) == (
        f"La copia no es válida: $.events[{index}].details.after.name: no es el nombre de la plantilla que cambia."
    )
    unchanged = copy.deepcopy(document)
    unchanged["events"][index]["details"]["after"] = unchanged["events"][index]["details"]["before"]
    assert refusal(unchanged) == f"La copia no es válida: $.events[{index}].details: no cambia nada de la plantilla."
    other_before = copy.deepcopy(document)
    other_before["events"][index]["details"]["before"]["count"] = 9
    assert refusal(other_before) == (
        f"La copia no es válida: $.events[{index}].details: no cuadra con las plantillas que deja el registro hasta "
        "ahí."
    )


def test_the_templates_are_the_ones_the_log_leaves(document):
    dropped = copy.deepcopy(document)
    dropped["templates"].pop()
    assert refusal(dropped) == "La copia no es válida: $.templates: no son las plantillas que deja el registro."
    forged = copy.deepcopy(document)
    forged["templates"].append({"name": "Dragón", "count": 1, "constitution": 30})
    assert refusal(forged) == "La copia no es válida: $.templates[2]: no es la plantilla que deja el registro."
    changed = copy.deepcopy(document)
    changed["templates"][0]["count"] = 60
    assert refusal(changed) == "La copia no es válida: $.templates[0]: no es la plantilla que deja el registro."
    twice = copy.deepcopy(document)
    twice["templates"].append(twice["templates"][0])
    assert refusal(twice) == "La copia no es válida: $.templates[2].name: repite el nombre de otra plantilla."


@pytest.mark.parametrize("kind", ["session_started", "template_changed"])
def test_an_entry_that_names_no_character_names_none(document, kind):
    entry = last_event(document, kind) if kind == "session_started" else first_event(document, kind)
    entry["characters"] = ["c1"]
    assert refusal(document) == (
        f"La copia no es válida: $.events[{document['events'].index(entry)}].characters: este cambio no trata de "
        "ningún personaje."
    )


def test_70001_templates_are_refused_in_well_under_a_second(document):
    """The duplicate names were looked for by a scan per template: 70,001 of them took 99 s of CPU to refuse, again
    and again (a refusal makes no campaign, so the cap on campaigns never stops it)."""
    many = copy.deepcopy(document)
    many["templates"] = [{"name": f"Plantilla {n}", "count": 1, "constitution": 5} for n in range(70_000)]
    many["templates"].append(many["templates"][0])
    data = json.dumps(many).encode()
    assert len(data) < backup.DOCUMENT_BYTES
    importer = make_user("importadora")
    start = time.process_time()
    with pytest.raises(actions.ActionError) as refused:
        backup.import_campaign(backup.read_document(data), importer)
    assert time.process_time() - start < 1.0
    assert "$.templates" in refused.value.message


def entry(document: dict[str, Any], action: str, details: dict[str, Any]) -> dict[str, Any]:
    """One more entry at the end of the document's log, of a kind that changes no character and no clock."""
    created = document["events"][0]["created"]
    key = f"e{len(document['events']) + 1}"
    fields = {"key": key, "action": action, "actor": None, "clock_before": 0, "clock_after": 0, "created": created}
    blank = {"characters": [], "before": {}, "after": {}, "undone": False, "undone_at": None, "undone_by": None}
    document["events"].append({**fields, "details": details, **blank})
    return document["events"][-1]


def judged(document: dict[str, Any]) -> float:
    """How many times the CPU that reading the document's file as plain JSON takes (the floor: a pass over every byte
    that makes every value), its reading and judging takes; the best of three of each, so that a busy machine (the
    suite runs in parallel) weighs on both alike. It is one file the app could write."""
    data = json.dumps(document).encode()
    assert len(data) < backup.DOCUMENT_BYTES

    def cpu(work: Callable[[], object]) -> float:
        times = []
        for _ in range(3):
            start = time.process_time()
            work()
            times.append(time.process_time() - start)
        return min(times)

    ratio = cpu(lambda: validate(backup.read_document(data))) / cpu(lambda: json.loads(data))
    print(f"judged in {ratio:.1f}× the time of reading it as JSON")
    return ratio


def test_a_file_full_of_log_is_judged_in_a_few_times_its_reading(document, settings):
    """Each entry's references were found by reading its payload's types anew: a file of 10,000 entries took 2.5 s of
    CPU to judge, some 200 times what reading it as JSON takes (now about 20 times, 0.27 s). Templates saved one by
    one, and sessions played one after another, up to the file's size (on a site whose cap on templates lets them
    all in)."""
    settings.NPC_TEMPLATES_PER_CAMPAIGN = 10_002
    templates = copy.deepcopy(document)
    for n in range(10_000):
        values = {"name": f"Plantilla {n}", "count": 1, "constitution": 5}
        entry(templates, "template_changed", {"after": values})
        templates["templates"].append({**values, "jump": 0, "heal_wounds": 0, "weight_kg": 70})
    assert judged(templates) < 60
    sessions = copy.deepcopy(document)
    entry(sessions, "session_ended", {"number": 1})
    for number in range(2, 8_000):
        entry(sessions, "session_started", {"number": number})
        entry(sessions, "session_ended", {"number": number})
    del sessions["sessions"]  # the log's
    assert judged(sessions) < 60


def test_a_copy_of_an_imported_campaign_is_not_nested_in_its_name():
    first, second = datetime.date(2026, 12, 1), datetime.date(2027, 1, 15)
    once = imported_name("La Cripta de Hielo", first)
    assert imported_name(once, second) == "«La Cripta de Hielo» (importada el 15 ene)"
    nested = "««La Cripta de Hielo» (importada el 1 dic)» (importada el 3 dic)"  # as older imports named it
    assert imported_name(nested, second) == "«La Cripta de Hielo» (importada el 15 ene)"
    long = imported_name(imported_name("x" * 100, first), second)
    assert len(long) == 100 and long.endswith("…» (importada el 15 ene)") and long.count("«") == 1
    with translation.override("en"):
        english = imported_name("La Cripta de Hielo", first)
    assert imported_name(english, second) == "«La Cripta de Hielo» (importada el 15 ene)"
    assert imported_name("«Mi» campaña (importada)", second) == "««Mi» campaña (importada)» (importada el 15 ene)"
