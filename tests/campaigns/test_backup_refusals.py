"""Issue 21: an import refuses every document the app itself could never have written, saying where, and writes
nothing: a file that is no document, a part of the wrong shape or out of range, and parts that do not hold together —
(a) an entry without the states its undo needs, (b) recovery progress that would give a free PG, (c) a death with
PG, a log that does not replay to its rows."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from rules import actions, backup, engine
from rules.damage import Attack
from rules.models import Disease, Illness
from tests.campaigns.documents import (
    GONE_ILLNESS,
    a_state_with_wounds,
    alive,
    campaign_gm,
    changed,
    first_event,
    last_event,
    named,
    refusal,
    rows,
    through_json,
    upload,
)
from tests.helpers import client_for, make_user, plague

TAMPERED: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "another version": changed(lambda d: d.update(version=2)),
    "another format": changed(lambda d: d.update(format="otra-cosa")),
    "no characters": changed(lambda d: d.pop("characters")),
    "no campaign": changed(lambda d: d.pop("campaign")),
    "characters not a list": changed(lambda d: d.update(characters={"c1": {}})),
    "a CON as text": changed(lambda d: alive(d).update(constitution="8")),
    "a CON out of range": changed(lambda d: alive(d).update(constitution=31)),
    "a skill out of range": changed(lambda d: alive(d).update(jump=-1)),
    "a weight of 0": changed(lambda d: alive(d).update(weight_kg=0)),
    "a PG the wounds do not give": changed(lambda d: alive(d).update(pg=alive(d)["pg"] + 1)),
    "dead with PG": changed(lambda d: alive(d).update(died_at=0)),
    "a bool as a number": changed(lambda d: alive(d).update(removed=1)),
    "a negative clock": changed(lambda d: d["campaign"].update(clock=-1)),
    "a clock past bigint": changed(lambda d: d["campaign"].update(clock=2**63)),
    "a float clock": changed(lambda d: d["campaign"].update(clock=1.5)),
    "a NUL in a name": changed(lambda d: alive(d).update(name="Ald\x00ara")),
    "a NUL deep in the log": changed(lambda d: first_event(d, "damage")["details"].update(kind="at\x00tack")),
    "a lone surrogate": changed(lambda d: d["campaign"].update(name="La \ud800 Cripta")),
    "an empty name": changed(lambda d: d["campaign"].update(name="   ")),
    "a huge name": changed(lambda d: d["campaign"].update(name="x" * 101)),
    "huge notes": changed(lambda d: alive(d).update(notes="n" * 5001)),
    "a huge string in the log": changed(lambda d: first_event(d, "damage")["details"].update(x="y" * 20_000)),
    "a wound healing more than it took": changed(
        lambda d: next(c for c in d["characters"] if c["wounds"])["wounds"][0].update(remaining=10**6)
    ),
    "a wound of an unknown kind": changed(
        lambda d: next(c for c in d["characters"] if c["wounds"])["wounds"][0].update(kind="bite")
    ),
    "an illness of a disease not in the file": changed(
        lambda d: next(c for c in d["characters"] if c["illnesses"])["illnesses"][0].update(disease="d999")
    ),
    "a disease with a positive penalty": changed(lambda d: d["diseases"][0].update(penalty=1)),
    "a common disease losing PG": changed(
        lambda d: next(x for x in d["diseases"] if x["category"] == "common").update(pg_per_week=3)
    ),
    "a rules disease this site lacks": changed(
        lambda d: next(x for x in d["diseases"] if x["scope"] == "builtin").update(name="Viruela")
    ),
    "two characters with one key": changed(lambda d: d["characters"][1].update(key=d["characters"][0]["key"])),
    "an event about a character not in the file": changed(lambda d: d["events"][0].update(characters=["c999"])),
    "a state of a character not in the file": changed(
        lambda d: first_event(d, "damage")["after"].update(c999=next(iter(first_event(d, "damage")["after"].values())))
    ),
    "a roll of a character not in the file": changed(
        lambda d: next(e for e in d["events"] if e["details"].get("rolls"))["details"]["rolls"][0].update(
            character="c999"
        )
    ),
    "an undo of an event not in the file": changed(lambda d: first_event(d, "undo")["details"].update(event="e999")),
    "an account id": changed(lambda d: first_event(d, "campaign_edited")["details"]["changes"].update(gm_id=[1, 2])),
    "an unknown party view": changed(lambda d: d["campaign"].update(party_view="everything")),
    "no party view for the campaign": changed(lambda d: d["campaign"].update(party_view="")),
    "a character's unknown party view": changed(lambda d: alive(d).update(party_view="secret")),
    "a party view that is no text": changed(lambda d: alive(d).update(party_view=None)),
    "a campaign edit back to an unknown party view": changed(
        lambda d: first_event(d, "campaign_edited")["details"]["changes"].update(party_view=["todo", "exact"])
    ),
    "a campaign edit back to no party view": changed(
        lambda d: first_event(d, "campaign_edited")["details"]["changes"].update(party_view=["", "exact"])
    ),
    "a sheet edit back to an unknown party view": changed(
        lambda d: first_event(d, "character_edited")["details"]["changes"].update(party_view=[["band"], "hidden"])
    ),
    "an unknown event kind": changed(lambda d: d["events"][0].update(action="resurrect")),
    "an advance without its duration": changed(lambda d: first_event(d, "advance")["details"].pop("seconds")),
    "a state with CON 0": changed(
        lambda d: next(iter(first_event(d, "damage")["after"].values())).update(constitution=0)
    ),
    "a state with a negative wound": changed(
        lambda d: next(iter(first_event(d, "damage")["after"].values()))["wounds"][0].update(amount=-5)
    ),
    "a state that is a list": changed(lambda d: first_event(d, "damage").update(before=[1, 2])),
    "an undo putting back CON 99": changed(
        lambda d: first_event(d, "character_edited")["details"]["changes"].update(constitution=[99, 6])
    ),
    "a date without a zone": changed(lambda d: d["events"][0].update(created="2025-01-01T10:00:00")),
    "not a date": changed(lambda d: d["events"][0].update(created="ayer")),
    "a missing key that is also a row": changed(lambda d: d["missing"]["disease"].append("d1")),
    "deep nesting": changed(lambda d: d["events"][0]["details"].update(x=json.loads("[" * 40 + "]" * 40))),
    # What an undo or a log entry reads, each as its action writes it (an undo of these would fail, a page break).
    "a sheet edit changing a disease's field": changed(
        lambda d: first_event(d, "character_edited")["details"]["changes"].update(penalty=[-1, -2])
    ),
    "a disease edit changing a CON": changed(
        lambda d: first_event(d, "disease_edited")["details"]["changes"].update(constitution=[5, 6])
    ),
    "a disease edit back to numbers that do not fit": changed(
        lambda d: first_event(d, "disease_edited")["details"]["changes"].update(category=["common", "serious"])
    ),
    "a disease edit back to a positive penalty": changed(
        lambda d: first_event(d, "disease_edited")["details"]["changes"].update(penalty=[3, -2])
    ),
    "a disease edit back to an untrimmed name": changed(
        lambda d: first_event(d, "disease_edited")["details"]["changes"].update(name=[" Fiebre ", "Fiebre del pantano"])
    ),
    "a campaign edit without its changes": changed(
        lambda d: first_event(d, "campaign_edited")["details"].pop("changes")
    ),
    "a sheet edit about no character": changed(lambda d: first_event(d, "character_edited").update(characters=[])),
    "a sheet edit whose CON its states do not show": changed(
        lambda d: first_event(d, "character_edited")["details"]["changes"].update(constitution=[1, 6])
    ),
    "a state with a wound larger than its row": changed(
        lambda d: a_state_with_wounds(d)["wounds"][0].update(amount=999)
    ),
    "a state with an illness of a gone disease": changed(
        lambda d: next(iter(d["events"][-1]["before"].values()))["illnesses"].append(dict(GONE_ILLNESS))
    ),
    "damage dice that are not an object": changed(lambda d: first_event(d, "damage")["details"].update(dice=5)),
    "a fall without its difficulty": changed(lambda d: last_event(d, "damage")["details"].update(height_m=3)),
    "a roll's penalty named by a number": changed(
        lambda d: first_event(d, "expose")["details"]["rolls"][0].update(penalties=[[1, -2]])
    ),
    "a roll without its character": changed(lambda d: first_event(d, "expose")["details"]["rolls"][0].pop("character")),
    "a loss without its PG": changed(lambda d: first_event(d, "damage")["details"].update(pg={})),
    "an own disease with the name of a rules one": changed(
        lambda d: next(x for x in d["diseases"] if x["scope"] == "campaign" and not x["retired"]).update(name="gripe")
    ),
}


@pytest.mark.parametrize("tamper", TAMPERED.values(), ids=TAMPERED.keys())
def test_a_tampered_document_is_refused_and_nothing_is_written(exported, tamper):
    importer = make_user("importadora")
    document = tamper(exported)
    before = rows()
    response = client_for(importer).post(reverse("campaign_import"), upload(document))
    assert response.status_code == 400, response.content.decode()[:500]
    assert rows() == before
    page = response.content.decode()
    assert 'class="errorlist' in page and ("no es v" in page or "copia" in page or "12Plus" in page)
    with pytest.raises(actions.ActionError):
        backup.import_campaign(document, importer)
    assert rows() == before


BAD_FILES: dict[str, bytes] = {
    "not JSON": b"esto no es JSON",
    "not UTF-8": b'{"format": "12plus-campaign", "name": "\xff\xfe"}',
    "NaN": b'{"format": "12plus-campaign", "version": NaN}',
    "a list": b"[1, 2, 3]",
    "empty": b"",
    "too deep for the parser": b"[" * 100_000 + b"]" * 100_000,
    "over 5 MB": b'{"format": "12plus-campaign", "x": "' + b"a" * (5 * 1024 * 1024) + b'"}',
}


@pytest.mark.parametrize("data", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_file_that_is_no_document_is_refused(db, data: bytes):
    importer = make_user("importadora")
    before = rows()
    response = client_for(importer).post(reverse("campaign_import"), upload(data))
    assert response.status_code == 400
    assert 'class="errorlist' in response.content.decode()
    assert rows() == before


def test_the_messages_say_where_the_problem_is(exported):
    document = TAMPERED["a CON out of range"](exported)
    with pytest.raises(actions.ActionError) as refused:
        backup.import_campaign(document, make_user("importadora"))
    assert refused.value.message == (
        "La copia no es válida: $.characters[0].constitution: debe ser un número entero entre 1 y 30."
    )
    with pytest.raises(actions.ActionError) as refused:
        backup.import_campaign(TAMPERED["another version"](exported), make_user("otra"))
    assert "versión 2" in refused.value.message


def test_an_import_respects_the_caps(exported, settings):
    importer = make_user("importadora")
    settings.CHARACTERS_PER_CAMPAIGN = 2
    before = rows()
    with pytest.raises(actions.ActionError, match="personajes en juego"):
        backup.import_campaign(exported, importer)
    settings.CHARACTERS_PER_CAMPAIGN = 60
    settings.CAMPAIGNS_PER_USER = 1
    actions.create_campaign("Otra", importer)
    before = rows()
    with pytest.raises(actions.ActionError, match="Ya llevas 1 campañas"):
        backup.import_campaign(exported, importer)
    assert rows() == before


# --- strict: what the app never writes is refused, saying where ------------------------------------------------------


def every_kind() -> tuple[Campaign, dict[str, int]]:
    """One entry of each kind that changes health (each has a state before and after of Aldara), and where it is."""
    Disease.objects.ensure_builtin()
    gm = make_user("gm")
    campaign = actions.create_campaign("Todo", gm)
    sheets = [actions.Sheet("Aldara", 8), actions.Sheet("Tomás", 5, heal_wounds=6), actions.Sheet("Borin", 1)]
    aldara, tomas, borin = (actions.add_character(campaign, sheet, by=gm).characters[0] for sheet in sheets)
    actions.apply_damage(campaign, [aldara], Attack(amount=30), by=gm)
    actions.expose(campaign, [aldara], plague(), by=gm, dice_by_character={aldara.pk: 1})
    actions.advance_clock(campaign, engine.DAY, by=gm)
    actions.treat_wounds(campaign, aldara, tomas, by=gm)
    illness = Illness.objects.get(character=aldara)
    actions.treat_illness(campaign, aldara, illness, tomas, by=gm)
    actions.medicate(campaign, aldara, illness, by=gm)
    actions.edit_character(campaign, aldara, actions.Sheet("Aldara", 9), by=gm)
    actions.apply_damage(campaign, [borin], Attack(amount=7), by=gm)
    actions.exertion(campaign, borin, die=12, by=gm)
    first: dict[str, int] = {}
    for index, kind in enumerate(campaign.events.order_by("id").values_list("action", flat=True)):
        first.setdefault(kind, index)
    return campaign, first


HEALTH_KINDS = ["damage", "expose", "advance", "treat_wounds", "treat_illness", "medicate", "character_edited"]


@pytest.mark.parametrize("kind", [*HEALTH_KINDS, "exertion"])
def test_an_entry_without_the_state_its_undo_needs_is_refused(db, kind: str):
    """(a) Without the state before of a character it changed, its undo could not give it back: refused, saying where
    — whether the state after, the entry's characters or its details name that character."""
    campaign, at = every_kind()
    document = through_json(backup.export_campaign(campaign))
    entry = document["events"][at[kind]]
    key = "c3" if kind == "exertion" else "c1"
    assert key in entry["before"]
    lacking = copy.deepcopy(document)
    del lacking["events"][at[kind]]["before"][key]
    assert refusal(lacking) == (
        f"La copia no es válida: $.events[{at[kind]}].before: le falta el estado de antes de {key}: deshacerlo no "
        "podría devolvérselo."
    )
    named = copy.deepcopy(document)  # no state before or after; its characters (and details) still name it
    for side in ("before", "after"):
        del named["events"][at[kind]][side][key]
    assert f"$.events[{at[kind]}]" in refusal(named)


def test_an_entry_whose_details_name_a_character_without_its_states_is_refused(db):
    campaign, at = every_kind()
    document = through_json(backup.export_campaign(campaign))
    entry = document["events"][at["damage"]]
    for side in ("before", "after"):
        del entry[side]["c1"]
    entry["characters"] = []
    assert refusal(document) == (
        f"La copia no es válida: $.events[{at['damage']}].details: le falta el estado de antes de c1: deshacerlo no "
        "podría devolvérselo."
    )


def healing() -> Campaign:
    """Aldara, 5 PG of an attack and 10 hours of rest: 10 of the 24 hours toward her next PG."""
    gm = make_user("gm")
    campaign = actions.create_campaign("Reposo", gm)
    aldara = actions.add_character(campaign, actions.Sheet("Aldara", 8), by=gm).characters[0]
    actions.apply_damage(campaign, [aldara], Attack(amount=5), by=gm)
    actions.advance_clock(campaign, 10 * engine.HOUR, by=gm)
    return Campaign.objects.get(pk=campaign.pk)


FREE_PG = "su progreso de recuperación (Ataque físico directo) ya llega al intervalo de la herida que sana antes: el "


def test_recovery_progress_that_would_give_a_free_pg_is_refused(db):
    """(b) Progress at or past the interval of the wound that heals next: one second of rest would give a PG."""
    document = through_json(backup.export_campaign(healing()))
    assert document["characters"][0]["recovery_progress"] == {"attack": 10 * engine.HOUR}
    for seconds in (engine.DAY, engine.DAY + 1, 10 * engine.DAY):
        rows_say = copy.deepcopy(document)
        rows_say["characters"][0]["recovery_progress"] = {"attack": seconds}
        assert refusal(rows_say) == f"La copia no es válida: $.characters[0]: {FREE_PG}próximo PG sería gratis."
        log_says = copy.deepcopy(document)
        log_says["events"][2]["after"]["c1"]["progress"] = [["attack", seconds]]
        assert refusal(log_says) == f"La copia no es válida: $.events[2].after.c1: {FREE_PG}próximo PG sería gratis."
    nothing_to_heal = copy.deepcopy(document)
    nothing_to_heal["characters"][0]["recovery_progress"] = {"attack": 3600, "gas": 60}
    assert refusal(nothing_to_heal) == (
        "La copia no es válida: $.characters[0]: lleva progreso de recuperación (Gases nocivos) sin ninguna herida de "
        "ese tipo que pueda sanar."
    )
    # 23:59:59 of 24 hours: what the app may write, after 13:59:59 more of rest.
    campaign = Campaign.objects.get(name="Reposo")  # healing()'s, exported above
    actions.advance_clock(campaign, engine.DAY - 1 - 10 * engine.HOUR, by=campaign.gm)
    just_below = through_json(backup.export_campaign(campaign))
    assert just_below["characters"][0]["recovery_progress"] == {"attack": engine.DAY - 1}
    restored = backup.import_campaign(just_below, campaign_gm(document))
    assert named(restored, "Aldara").recovery_progress == {"attack": engine.DAY - 1}


def test_an_advance_whose_states_are_not_the_engines_is_refused(db):
    """Time has no dice: an advance's states after are exactly what the engine makes of its states before."""
    document = through_json(backup.export_campaign(healing()))
    forged = copy.deepcopy(document)
    forged["events"][2]["after"]["c1"]["progress"] = [["attack", 11 * engine.HOUR]]
    message = "La copia no es válida: $.events[2].after.c1: no es lo que el paso del tiempo hace con su estado."
    assert refusal(forged) == message


def test_a_death_with_pg_is_refused(db):
    """(c) Dead means 0 PG: a character or a state dead with PG, alive at 0 PG, or dead without the damage that
    kills."""
    document = through_json(backup.export_campaign(healing()))
    dead_with_pg = copy.deepcopy(document)
    dead_with_pg["characters"][0]["died_at"] = 0
    assert refusal(dead_with_pg) == (
        "La copia no es válida: $.characters[0]: dice 75 PG, pero sus heridas y su muerte dan 0."
    )
    dead_unhurt = copy.deepcopy(document)
    dead_unhurt["characters"][0].update(died_at=0, pg=0, recovery_progress={})
    assert refusal(dead_unhurt) == (
        "La copia no es válida: $.characters[0]: dice que murió, pero sus heridas no llegan a los 10 PG que matan como "
        "mínimo."
    )
    state_dead_unhurt = copy.deepcopy(document)
    state_dead_unhurt["events"][1]["after"]["c1"]["died_at"] = 0
    assert refusal(state_dead_unhurt) == (
        "La copia no es válida: $.events[1].after.c1: dice que murió, pero sus heridas no llegan a los 10 PG que matan "
        "como mínimo."
    )
    gm = make_user("verdugo")
    campaign = actions.create_campaign("Muerte", gm)
    aldara = actions.add_character(campaign, actions.Sheet("Aldara", 8), by=gm).characters[0]
    actions.apply_damage(campaign, [aldara], Attack(amount=80), by=gm)
    dead = through_json(backup.export_campaign(campaign))
    assert dead["characters"][0]["died_at"] == 0
    alive_at_zero = copy.deepcopy(dead)
    alive_at_zero["characters"][0]["died_at"] = None
    assert refusal(alive_at_zero) == "La copia no es válida: $.characters[0]: tiene 0 PG sin haber muerto."
    state_alive_at_zero = copy.deepcopy(dead)
    state_alive_at_zero["events"][1]["after"]["c1"]["died_at"] = None
    assert refusal(state_alive_at_zero) == "La copia no es válida: $.events[1].after.c1: tiene 0 PG sin haber muerto."


def test_a_weekly_loss_not_charged_is_refused(db):
    gm = make_user("gm")
    campaign = actions.create_campaign("Peste", gm)
    Disease.objects.ensure_builtin()
    aldara = actions.add_character(campaign, actions.Sheet("Aldara", 8), by=gm).characters[0]
    actions.expose(campaign, [aldara], plague(), by=gm, dice_by_character={aldara.pk: 1})
    document = through_json(backup.export_campaign(campaign))
    document["campaign"]["clock"] = engine.WEEK  # a week later, and the plague took nothing
    assert refusal(document) == (
        "La copia no es válida: $.characters[0]: le falta una pérdida semanal de su enfermedad, que ya tocaba."
    )


# What else an import refuses, each with the message that says where (the long history's own document, changed).
STRICT: dict[str, tuple[Callable[[dict[str, Any]], object], str]] = {
    "a state that is not where the log left its character": (
        lambda d: last_event(d, "advance")["before"]["c1"]["wounds"][0].update(treated=True),
        "$.events[39].before.c1: no es el estado en que dejó a su personaje el registro.",
    ),
    "rows that are not where the log ends": (
        lambda d: d["characters"][0].update(notes="x", wounds=[]),
        "$.characters[0]: no es el estado en que lo deja el registro.",
    ),
    "an undo of an entry that is not the latest": (
        lambda d: first_event(d, "undo")["details"].update(event="e1"),
        "$.events[24].details.event: no es el último cambio sin deshacer, que es el que se deshace.",
    ),
    "an entry undone by no undo": (
        lambda d: d["events"][0].update(undone=True),
        "$.events[0].undone: no cuadra con los «deshacer» del registro.",
    ),
    "a clock that jumps between entries": (
        lambda d: d["events"][5].update(clock_before=d["events"][5]["clock_before"] + 1),
        "$.events[5].clock_before: no sigue al reloj del cambio anterior (0 s).",
    ),
    "a state of another moment than its entry": (
        lambda d: next(iter(last_event(d, "advance")["after"].values())).update(now=0),
        "$.events[39].after.c1.now: no es el reloj del cambio (",
    ),
    "keys out of order": (
        lambda d: d["characters"][0].update(key="c9"),
        "$.characters[0].key: debe ser «c1»: las claves van en orden.",
    ),
    "a wound of an illness the character never had": (
        lambda d: next(c for c in d["characters"] if c["name"] == "Aldara")["wounds"][0].update(
            illness_key="disease:d2"
        ),
        "$.characters[0].wounds[0]: una herida de enfermedad, y solo ella, nombra su enfermedad.",
    ),
    "a removed character in play": (
        lambda d: next(c for c in d["characters"] if c["removed"]).update(removed=False),
        "$.characters[3].removed: no cuadra con las altas y retiradas del registro.",
    ),
    "an illness cured with no cure": (
        lambda d: d["characters"][0]["illnesses"][0].update(medicated=False),
        "$.characters[0].illnesses[0]: tiene fecha de curación solo si está curada.",
    ),
    "a loss the log tells with other PG": (
        lambda d: next(e for e in d["events"] if e["action"] == "damage")["details"]["pg"].update(c2=[36, 1]),
        "$.events[5].details.pg: da unos PG que no son los de sus estados.",
    ),
    "an actor that is no username": (
        lambda d: d["events"][0].update(actor="el narrador"),
        "$.events[0].actor: debe ser un nombre de usuario de hasta 150 caracteres.",
    ),
    "a disease's entry named by two keys": (
        lambda d: (
            d["diseases"].append({**d["diseases"][-1], "key": f"d{len(d['diseases']) + 1}"})
            or d["missing"].update(disease=[f"d{len(d['diseases']) + 1}"])
        ),
        "es la misma enfermedad del sitio que otra de la copia.",
    ),
}


@pytest.mark.parametrize("case", STRICT.values(), ids=STRICT.keys())
def test_what_the_app_never_writes_is_refused_saying_where(exported, case):
    change, message = case
    document = copy.deepcopy(exported)
    change(document)
    assert message in refusal(document)


def test_a_problem_in_an_entrys_details_is_said_where_it_is(exported):
    document = copy.deepcopy(exported)
    damage = first_event(document, "damage")
    damage["details"]["pg"]["c2"] = [36, "x"]
    index = document["events"].index(damage)
    assert refusal(document) == (
        f"La copia no es válida: $.events[{index}].details.pg[...][1]: debe ser un número entero entre "
        f"{-(2**63 - 1)} y {2**63 - 1}."
    )
    document = copy.deepcopy(exported)
    undo = first_event(document, "undo")
    assert undo["details"]["action"] == "expose"
    undo["details"]["undone"]["details"]["disease"] = 5
    index = document["events"].index(undo)
    assert refusal(document) == (
        f"La copia no es válida: $.events[{index}].details.undone.details.disease: debe ser un texto de hasta 10000 "
        "caracteres."
    )
