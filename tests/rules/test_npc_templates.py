"""Issue 25, quick NPCs' templates: a campaign keeps the "Añadir varios" form's values under a name. Saving, saving
again and deleting are each logged and undone; refusals change nothing; templates travel in a campaign backup, and
an older document without them still imports."""

import pytest

from campaigns.models import Event
from characters.models import NpcTemplate
from play.log.pages import table_log
from rules import actions, backup, queries
from rules.actions import ActionError, Sheet
from tests.campaigns.documents import long_history, refusal, through_json
from tests.helpers import World, full_snapshot, log_mismatches, snapshot


def kept(world: World) -> list[tuple]:
    rows = NpcTemplate.objects.filter(campaign=world.campaign_a)
    return list(rows.values_list("name", "count", "constitution", "jump", "heal_wounds", "weight_kg", "party_view"))


def unchanged(world: World):
    return snapshot(), full_snapshot(world.campaign_a), Event.objects.count(), list(NpcTemplate.objects.values())


def title(world: World) -> str:
    return table_log(world.campaign_a)[0].title


def undo_latest(world: World) -> None:
    actions.undo(world.campaign_a, by=world.gm_a, event=queries.latest_undoable(world.campaign_a))


WOLF = Sheet("Lobo", 3, jump=4, weight_kg=40, party_view="hidden")


def test_save_save_again_delete_and_undo_each(world: World):
    actions.save_template(world.campaign_a, WOLF, 5, by=world.gm_a)
    assert kept(world) == [("Lobo", 5, 3, 4, 0, 40, "hidden")]
    assert title(world) == "Plantilla de PNJ guardada: Lobo"
    assert actions.save_template(world.campaign_a, WOLF, 5, by=world.gm_a).event is None  # nothing new to keep

    actions.save_template(world.campaign_a, Sheet(" Lobo ", 4, weight_kg=45), 2, by=world.gm_a)
    assert kept(world) == [("Lobo", 2, 4, 0, 0, 45, "")]
    assert title(world) == "Plantilla de PNJ cambiada: Lobo"
    undo_latest(world)
    assert kept(world) == [("Lobo", 5, 3, 4, 0, 40, "hidden")]

    actions.delete_template(world.campaign_a, NpcTemplate.objects.get(name="Lobo"), by=world.gm_a)
    assert kept(world) == []
    assert title(world) == "Plantilla de PNJ borrada: Lobo"
    undo_latest(world)
    assert kept(world) == [("Lobo", 5, 3, 4, 0, 40, "hidden")]

    undo_latest(world)  # the change and the deletion are undone already: this undoes the first save
    assert kept(world) == []
    assert log_mismatches(world.campaign_a) == []


def test_a_template_fills_the_add_several_action(world: World):
    actions.save_template(world.campaign_a, WOLF, 3, by=world.gm_a)
    template = NpcTemplate.objects.get(name="Lobo")
    sheet = Sheet(template.name, template.constitution, template.jump, template.heal_wounds, template.weight_kg)
    wolves = actions.add_characters(world.campaign_a, sheet, template.count, by=world.gm_a).characters
    assert [w.name for w in wolves] == ["Lobo 1", "Lobo 2", "Lobo 3"]


@pytest.mark.parametrize(
    ("sheet", "count", "field"),
    [
        (Sheet("", 3), 2, "name"),
        (Sheet("Lo\x00bo", 3), 2, "name"),
        (Sheet("L" * 100_000, 3), 2, "name"),
        (Sheet("Lobo", 0), 2, "constitution"),
        (Sheet("Lobo", 3, weight_kg=-1), 2, "weight_kg"),
        (Sheet("Lobo", 3, party_view="x"), 2, "party_view"),
        (WOLF, 0, "count"),
        (WOLF, 10_000, "count"),
    ],
)
def test_bad_values_change_nothing(world: World, sheet, count, field):
    before = unchanged(world)
    with pytest.raises(ActionError) as error:
        actions.save_template(world.campaign_a, sheet, count, by=world.gm_a)
    assert error.value.field == field
    assert unchanged(world) == before


def test_another_campaigns_template_is_not_found(world: World):
    theirs = NpcTemplate.objects.create(campaign=world.campaign_b, name="Lobo", count=2, constitution=3)
    before = unchanged(world)
    with pytest.raises(ActionError) as error:
        actions.delete_template(world.campaign_a, theirs, by=world.gm_a)
    assert error.value.message == "Esa plantilla ya no existe."
    assert unchanged(world) == before


# --- backups ---------------------------------------------------------------------------------------------------------


def test_templates_travel_in_a_backup(world: World):
    actions.save_template(world.campaign_a, WOLF, 5, by=world.gm_a)
    actions.save_template(world.campaign_a, Sheet("Guardia", 6, notes="Lanza"), 4, by=world.gm_a)
    actions.save_template(world.campaign_a, Sheet("Orco", 8), 2, by=world.gm_a)
    actions.delete_template(world.campaign_a, NpcTemplate.objects.get(name="Orco"), by=world.gm_a)
    first = through_json(backup.export_campaign(world.campaign_a))
    assert [t["name"] for t in first["templates"]] == ["Guardia", "Lobo"]
    restored = backup.import_campaign(first, world.gm_a)
    assert sorted(restored.npc_templates.values_list("name", "count", "notes")) == [
        ("Guardia", 4, "Lanza"),
        ("Lobo", 5, ""),
    ]
    second = through_json(backup.export_campaign(restored))
    assert second["templates"] == first["templates"] and second["events"] == first["events"]
    # Undo goes on in the copy: the deleted template comes back.
    actions.undo(restored, by=world.gm_a, event=queries.latest_undoable(restored))
    assert restored.npc_templates.filter(name="Orco").exists()


def test_an_older_document_without_templates_imports(db):
    campaign = long_history()
    document = through_json(backup.export_campaign(campaign))
    del document["templates"]
    restored = backup.import_campaign(document, campaign.gm)
    assert not restored.npc_templates.exists()


@pytest.mark.parametrize(
    ("templates", "where"),
    [
        ([{"name": "Lobo", "count": 2, "constitution": 3}] * 2, "$.templates[0]"),  # not the log's, before it repeats
        ([{"name": "Lobo", "count": 0, "constitution": 3}], "$.templates[0].count"),
        ([{"name": "Lobo", "count": 2, "constitution": 99}], "$.templates[0].constitution"),
        ([{"name": " Lobo", "count": 2, "constitution": 3}], "$.templates[0].name"),
        ([{"name": "Lobo", "count": 2, "constitution": 3, "hp": 1}], "$.templates[0]"),
    ],
)
def test_a_bad_template_is_refused_with_where(db, templates, where):
    campaign = long_history()
    document = through_json(backup.export_campaign(campaign))
    document["templates"] = templates
    assert where in refusal(document, campaign.gm)
