"""The races of issue 9, on real concurrent connections: each pair of changes that collided runs at once, several
times. Whatever the order the database picks, nothing but a refusal (ActionError) is raised, no change is lost, and
the stored state equals a replay of the campaign log."""

from dataclasses import replace

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Event, Invitation
from characters.models import Character
from rules import actions, engine, queries
from rules.damage import Attack, Gas
from rules.events import EventKind
from rules.models import Disease, Illness
from tests.helpers import HTMX, client_for, death_invariant_violations, log_mismatches, make_user, plague, run_at_once

pytestmark = pytest.mark.django_db(transaction=True)

ROUNDS = 5


class Table:
    """A fresh campaign for one round: a GM, Aldara (CON 8, 75 PG lost), Borin (CON 12, 20 lost), and a pending link."""

    def __init__(self, gm, n: int) -> None:
        self.gm = gm
        self.campaign = Campaign.objects.create(name=f"Carrera {n}", gm=gm)
        self.aldara = self.add("Aldara", 8)
        self.borin = self.add("Borin", 12)
        actions.apply_damage(self.campaign, [self.aldara], Attack(amount=70), by=gm)
        actions.apply_damage(self.campaign, [self.aldara, self.borin], Gas(turns=5), by=gm)
        actions.create_invitation(self.campaign, self.aldara, by=gm)

    def add(self, name: str, constitution: int) -> Character:
        outcome = actions.add_character(self.campaign, actions.Sheet(name, constitution), by=self.gm)
        return outcome.characters[0]

    def sheet(self, character: Character, **changes) -> actions.Sheet:
        return replace(actions.Sheet.of(Character.everyone.get(pk=character.pk)), **changes)

    def events(self, kind: str) -> int:
        return Event.objects.filter(campaign=self.campaign, action=kind, undone=False).count()

    def check(self, errors: list[BaseException]) -> list[actions.ActionError]:
        """Only refusals were raised; the log replays to the stored state; no one is alive at 0 PG or dead above."""
        unexpected = [error for error in errors if not isinstance(error, actions.ActionError)]
        assert unexpected == [], unexpected
        assert log_mismatches(self.campaign) == []
        assert death_invariant_violations() == []
        return [error for error in errors if isinstance(error, actions.ActionError)]


@pytest.fixture
def gm():
    Disease.objects.ensure_builtin()  # a transaction=True test starts from an emptied database
    return make_user("gm")


@pytest.mark.parametrize("n", range(ROUNDS))
def test_an_edit_racing_an_advance_loses_neither(gm, n: int):
    table = Table(gm, n)
    # CON 8 → 7 leaves Aldara at 0 PG (75 lost of 70): she dies at the edit, before or after the advance.
    edit = table.sheet(table.aldara, name="Aldara la Roja", constitution=7, weight_kg=61)
    errors = run_at_once(
        [
            lambda: actions.edit_character(table.campaign.pk, table.aldara.pk, edit, by=gm),
            lambda: actions.advance_clock(table.campaign.pk, 3 * engine.DAY, by=gm),
        ]
    )
    assert table.check(errors) == []
    aldara = Character.objects.get(pk=table.aldara.pk)
    assert (aldara.name, aldara.constitution, aldara.weight_kg) == ("Aldara la Roja", 7, 61)
    table.campaign.refresh_from_db()
    assert table.campaign.clock == 3 * engine.DAY  # the advance took effect too
    assert (table.events(EventKind.CHARACTER_EDITED), table.events(EventKind.ADVANCE)) == (1, 1)
    edited = Event.objects.get(campaign=table.campaign, action=EventKind.CHARACTER_EDITED)
    advanced = Event.objects.get(campaign=table.campaign, action=EventKind.ADVANCE)
    if edited.pk < advanced.pk:  # the new CON first: 70 − 75 is 0 PG, she dies, and the advance heals no one dead
        assert (aldara.pg, aldara.died_at) == (0, 0)
    else:  # three days of rest first (3 PG of the attack, the gas all back), then 70 − 67
        assert (aldara.pg, aldara.died_at) == (3, None)


@pytest.mark.parametrize("n", range(ROUNDS))
def test_a_rename_racing_a_long_advance_keeps_the_advance(gm, n: int):
    """The case of the issue: the edit must not write back the PG it read before the advance."""
    table = Table(gm, n)
    edit = table.sheet(table.borin, name="Borin Piedra", notes="Herrero.")
    errors = run_at_once(
        [
            lambda: actions.advance_clock(table.campaign.pk, 30 * engine.DAY, by=gm),
            lambda: actions.edit_character(table.campaign.pk, table.borin.pk, edit, by=gm),
        ]
    )
    assert table.check(errors) == []
    borin = Character.objects.get(pk=table.borin.pk)
    assert (borin.name, borin.notes, borin.pg) == ("Borin Piedra", "Herrero.", 120)  # healed by the advance


@pytest.mark.parametrize("n", range(ROUNDS))
def test_an_edit_racing_damage_loses_neither(gm, n: int):
    table = Table(gm, n)
    edit = table.sheet(table.borin, name="Borin II", constitution=13, jump=4)
    errors = run_at_once(
        [
            lambda: actions.edit_character(table.campaign.pk, table.borin.pk, edit, by=gm),
            lambda: actions.apply_damage(table.campaign.pk, [table.borin.pk], Attack(amount=9), by=gm),
        ]
    )
    assert table.check(errors) == []
    borin = Character.objects.get(pk=table.borin.pk)
    assert (borin.name, borin.constitution, borin.jump) == ("Borin II", 13, 4)
    assert borin.pg == 130 - 5 - 9  # the gas, the attack, and the new CON, in either order
    assert borin.wounds.count() == 2


@pytest.mark.parametrize("n", range(ROUNDS))
def test_an_edit_racing_an_exposure_keeps_the_days_protection(gm, n: int):
    table = Table(gm, n)
    edit = table.sheet(table.borin, name="Borin el Sano")
    flu = Disease.objects.get(name="Gripe", builtin=True)
    errors = run_at_once(
        [
            lambda: actions.edit_character(table.campaign.pk, table.borin.pk, edit, by=gm),
            # 12 + CON 12 resists: Borin is protected from common diseases for the day.
            lambda: actions.expose(
                table.campaign.pk, [table.borin.pk], flu, dice_by_character={table.borin.pk: 12}, by=gm
            ),
        ]
    )
    assert table.check(errors) == []
    borin = Character.objects.get(pk=table.borin.pk)
    assert borin.name == "Borin el Sano" and borin.protection == [["common", 0]]


@pytest.mark.parametrize("n", range(ROUNDS))
def test_a_removal_racing_damage_and_an_advance(gm, n: int):
    table = Table(gm, n)
    errors = run_at_once(
        [
            lambda: actions.remove_character(table.campaign.pk, table.aldara.pk, by=gm),
            lambda: actions.apply_damage(table.campaign.pk, [table.aldara.pk, table.borin.pk], Attack(amount=3), by=gm),
            lambda: actions.advance_clock(table.campaign.pk, engine.DAY, by=gm),
        ]
    )
    refusals = table.check(errors)
    # The damage comes after the removal, or before it: refused as a whole ("not in this campaign"), or applied.
    assert [error.message for error in refusals] in ([], ["Ese personaje no pertenece a esta campaña."])
    aldara = Character.everyone.get(pk=table.aldara.pk)
    assert aldara.removed and not Character.objects.filter(pk=aldara.pk).exists()
    assert not Invitation.objects.get(character=aldara).pending  # its link went with it
    table.campaign.refresh_from_db()
    assert table.campaign.clock == engine.DAY
    assert table.events(EventKind.DAMAGE) == 2 + (0 if refusals else 1)
    # And the removal can be undone whatever happened after it, once the later events are undone.
    while True:
        latest = queries.latest_undoable(table.campaign)
        actions.undo(table.campaign, by=gm, event=latest)
        if latest.action == EventKind.CHARACTER_REMOVED:
            break
    assert Character.objects.filter(pk=aldara.pk).exists()
    assert log_mismatches(table.campaign) == []


@pytest.mark.parametrize("n", range(3))
def test_removals_racing_damage_and_advances_over_http_answer_no_500(gm, n: int):
    """The issue's deadlocks: deleting characters from the table's page while damage and advances are posted."""
    table = Table(gm, n)
    extra = [table.add(f"Extra {i}", 10) for i in range(3)]
    everyone = [table.aldara, table.borin, *extra]

    def post(url: str, data: dict, htmx: bool = True) -> int:
        return client_for(gm).post(url, data, **(HTMX if htmx else {})).status_code

    campaign_id = table.campaign.pk
    damage_url = reverse("damage", kwargs={"campaign_id": campaign_id})
    advance_url = reverse("advance", kwargs={"campaign_id": campaign_id})
    statuses: list[int] = []

    def delete(character: Character):
        url = reverse("character_delete", kwargs={"campaign_id": campaign_id, "character_id": character.pk})
        return lambda: statuses.append(post(url, {}, htmx=False))

    def hurt():
        data = {"kind": "attack", "amount": "2", "characters": [c.pk for c in everyone]}
        statuses.append(post(damage_url, data))

    def rest():
        statuses.append(post(advance_url, {"preset": "86400", "resting": [c.pk for c in everyone]}))

    errors = run_at_once([delete(table.aldara), delete(extra[0]), hurt, rest, hurt, rest, delete(extra[1])])
    assert errors == []
    assert 500 not in statuses and len(statuses) == 7, statuses
    # A damage form naming a character removed meanwhile is refused with its message (422), never a 500.
    assert set(statuses) <= {200, 302, 422}, statuses
    assert Character.objects.filter(campaign=table.campaign).count() == 2
    assert log_mismatches(table.campaign) == []
    assert death_invariant_violations() == []


@pytest.mark.parametrize("n", range(3))
def test_an_edit_form_racing_an_advance_over_http(gm, n: int):
    """The issue's first case as the GM meets it: the sheet's form saved while an advance is posted."""
    table = Table(gm, n)
    campaign_id = table.campaign.pk
    edit_url = reverse("character_edit", kwargs={"campaign_id": campaign_id, "character_id": table.borin.pk})
    form = {"name": "Borin Piedra", "constitution": "12", "jump": "0", "heal_wounds": "0", "weight_kg": "70"}
    statuses: list[int] = []

    def save():
        statuses.append(client_for(gm).post(edit_url, {**form, "notes": "", "player": ""}).status_code)

    def rest():
        url = reverse("advance", kwargs={"campaign_id": campaign_id})
        data = {"preset": "86400", "resting": [table.aldara.pk, table.borin.pk]}
        statuses.append(client_for(gm).post(url, data, **HTMX).status_code)

    assert run_at_once([save, rest]) == []
    assert sorted(statuses) == [200, 302]
    borin = Character.objects.get(pk=table.borin.pk)
    assert (borin.name, borin.pg) == ("Borin Piedra", 120)  # renamed, and the gas healed by the day that passed
    table.campaign.refresh_from_db()
    assert table.campaign.clock == engine.DAY
    assert log_mismatches(table.campaign) == [] and death_invariant_violations() == []


@pytest.mark.parametrize("n", range(ROUNDS))
def test_a_disease_edit_racing_its_retirement_loses_neither(gm, n: int):
    table = Table(gm, n)
    sheet = actions.DiseaseSheet("Mal de altura", "common", -1)
    disease = actions.add_disease(table.campaign, sheet, by=gm).event.details["disease"]
    edited = actions.DiseaseSheet("Mal de las cumbres", "serious", -3, 2)
    errors = run_at_once(
        [
            lambda: actions.edit_disease(table.campaign.pk, disease, edited, by=gm),
            lambda: actions.retire_disease(table.campaign.pk, disease, by=gm),
        ]
    )
    assert table.check(errors) == []
    row = Disease.objects.get(pk=disease)
    assert (row.name, row.category, row.penalty, row.pg_per_week, row.retired) == (
        "Mal de las cumbres",
        "serious",
        -3,
        2,
        True,
    )
    assert (table.events(EventKind.DISEASE_EDITED), table.events(EventKind.DISEASE_RETIRED)) == (1, 1)


@pytest.mark.parametrize("n", range(ROUNDS))
def test_two_undos_of_one_event_undo_it_once(gm, n: int):
    table = Table(gm, n)
    # 1 + CON 8 − 2 (5 PG) fails against 12: Aldara falls ill.
    actions.expose(table.campaign, [table.aldara], plague(), dice_by_character={table.aldara.pk: 1}, by=gm)
    hit = actions.apply_damage(table.campaign, [table.borin], Attack(amount=7), by=gm).event
    errors = run_at_once([lambda: actions.undo(table.campaign.pk, by=gm, event=hit.pk)] * 2)
    refusals = table.check(errors)
    assert [error.message for error in refusals] == ["Ese cambio ya se deshizo o ya no es el último: mira el registro."]
    assert table.events(EventKind.UNDO) == 1
    assert list(Event.objects.filter(campaign=table.campaign, undone=True)) == [hit]
    # The exposure before it is untouched: only the event the button named was undone.
    assert Illness.objects.filter(character=table.aldara).count() == 1
    assert Character.objects.get(pk=table.borin.pk).pg == 120 - 5


@pytest.mark.parametrize("n", range(3))
def test_two_undo_posts_with_one_event_id_undo_once(gm, n: int):
    """Two tabs, or a retry: the same undo button posted twice at once through the web."""
    table = Table(gm, n)
    actions.apply_damage(table.campaign, [table.borin], Attack(amount=4), by=gm)
    hit = actions.apply_damage(table.campaign, [table.borin], Attack(amount=7), by=gm).event
    url = reverse("undo", kwargs={"campaign_id": table.campaign.pk})
    bodies: list[str] = []

    def press():
        response = client_for(gm).post(url, {"event": str(hit.pk)}, **HTMX)
        assert response.status_code == 200
        bodies.append(response.content.decode())

    assert run_at_once([press, press]) == []
    assert table.events(EventKind.UNDO) == 1
    assert list(Event.objects.filter(campaign=table.campaign, undone=True)) == [hit]
    assert Character.objects.get(pk=table.borin.pk).pg == 120 - 5 - 4
    assert sum("Ese cambio ya se deshizo o ya no es el último" in body for body in bodies) == 1
    assert log_mismatches(table.campaign) == []
