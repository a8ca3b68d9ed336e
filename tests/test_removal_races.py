"""The same removal sent several times at once (a double click, two tabs, a phone and a laptop): it happens once,
each request gets an answer that says so, and none is a 500 (issue 23). Real concurrent connections, each committing."""

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Event, Invitation, TokenScope
from rules import actions
from rules.actions import Call, tokens
from rules.damage import Attack
from rules.models import CalledCheck, CheckKind, Disease
from tests.helpers import HTMX, World, client_for, run_at_once

pytestmark = pytest.mark.django_db(transaction=True)
AT_ONCE = 4


@dataclass
class Removal:
    """One removal: what to post (made ready on `world`), and what must hold once every copy of it is answered."""

    prepare: Callable[[World], tuple[str, dict[str, object], dict[str, str]]]  # url, data, headers
    done: Callable[[World], bool]
    kind: str  # the event it logs, once
    answers: tuple[int, ...]  # the statuses the copies may get


def character(world: World):
    url = reverse("character_delete", args=[world.campaign_a.pk, world.char_a1.pk])
    return url, {}, {}


def invitation(world: World):
    url = reverse("invitation_revoke", args=[world.campaign_a.pk, world.invite_a.pk])
    return url, {}, HTMX


def check(world: World):
    fall = Call(CheckKind.FALL, height_m=10, difficulty=15)
    outcome = actions.call_check(world.campaign_a, [world.char_a1], fall, by=world.gm_a)
    pending = CalledCheck.objects.get(called=outcome.event)
    return reverse("cancel_check", args=[world.campaign_a.pk]), {"checks": pending.pk}, HTMX


def disease(world: World):
    sheet = actions.DiseaseSheet("Fiebre roja", "common", -2)
    created = actions.add_disease(world.campaign_a, sheet, by=world.gm_a)
    found = Disease.objects.get(campaign=world.campaign_a, name="Fiebre roja")
    assert created.event is not None
    return reverse("disease_retire", args=[world.campaign_a.pk, found.pk]), {"retire": "1"}, {}


def undo(world: World):
    event = actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=4), by=world.gm_a).event
    return reverse("undo", args=[world.campaign_a.pk]), {"event": event.pk}, HTMX


def campaign(world: World):
    return reverse("campaign_delete", args=[world.campaign_a.pk]), {"name": world.campaign_a.name}, {}


REMOVALS = {
    "character": Removal(character, lambda w: w.char_a1.__class__.everyone.get(pk=w.char_a1.pk).removed,
                         "character_removed", (302,)),
    "invitation": Removal(invitation, lambda w: Invitation.objects.get(pk=w.invite_a.pk).revoked_at is not None,
                          "invitation_revoked", (200,)),
    "check": Removal(check, lambda w: not CalledCheck.objects.filter(status="pending").exists(),
                     "check_cancelled", (200, 422)),
    "disease": Removal(disease, lambda w: Disease.objects.get(name="Fiebre roja").retired, "disease_retired", (302,)),
    "undo": Removal(undo, lambda w: w.char_a1.__class__.objects.get(pk=w.char_a1.pk).pg == 80, "undo", (200,)),
}  # fmt: skip


@pytest.mark.parametrize("name", REMOVALS)
def test_the_same_removal_at_once_happens_once_and_each_copy_is_answered(world: World, name: str):
    removal = REMOVALS[name]
    url, data, headers = removal.prepare(world)
    statuses: list[int] = []
    clients = [client_for(world.gm_a) for _ in range(AT_ONCE)]

    def send(client: Client) -> None:
        statuses.append(client.post(url, data, **headers).status_code)

    errors = run_at_once([lambda client=client: send(client) for client in clients])
    assert not errors and len(statuses) == AT_ONCE and set(statuses) <= set(removal.answers), statuses
    assert removal.done(world)
    assert Event.objects.filter(campaign=world.campaign_a, action=removal.kind).count() == 1


def test_the_same_campaign_deleted_at_once_is_deleted_once_and_each_copy_is_answered(world: World):
    url, data, _headers = campaign(world)
    answers: list[tuple[int, str]] = []
    clients = [client_for(world.gm_a) for _ in range(AT_ONCE)]

    def send(client: Client) -> None:
        response = client.post(url, data)
        answers.append((response.status_code, response.content.decode()))

    errors = run_at_once([lambda client=client: send(client) for client in clients])
    assert not errors and sorted(status for status, _text in answers)[0] == 302, answers
    # The later ones: deleted under them ("ya no existe", beside the name typed), or already gone (404).
    assert all(status == 302 or status == 404 or "ya no existe" in text for status, text in answers)
    assert not Campaign.objects.filter(pk=world.campaign_a.pk).exists()


@pytest.mark.django_db  # one browser tab, one click after another: no thread of its own needed
def test_a_second_click_on_retire_says_so_instead_of_bringing_the_disease_back(world: World):
    url, data, _headers = disease(world)
    gm = client_for(world.gm_a)
    assert gm.post(url, data).status_code == 302
    again = gm.post(url, data, follow=True).content.decode()
    assert "ya estaba retirada" in again
    assert Disease.objects.get(name="Fiebre roja").retired
    assert gm.post(url, {"retire": "0"}).status_code == 302  # "Recuperar" brings it back
    assert not Disease.objects.get(name="Fiebre roja").retired


def test_the_same_check_answered_through_the_api_at_once_is_rolled_once(world: World):
    """A player's bot and their phone's bot, both answering one called check at the same moment: one roll, logged
    once; the other copies are told it is no longer pending (409), none a 500."""
    actions.call_check(world.campaign_a, [world.char_a1], Call(CheckKind.FALL, height_m=3), by=world.gm_a)
    check = CalledCheck.objects.get(character=world.char_a1)
    secret = tokens.create_token(world.player_a, name="bot", scope=TokenScope.ACT)[1]
    url = f"/api/v1/campaigns/{world.campaign_a.pk}/checks/{check.pk}/answer"
    statuses: list[int] = []

    def send() -> None:
        answer = Client().post(
            url, {"die": 10}, content_type="application/json", headers={"Authorization": f"Bearer {secret}"}
        )
        statuses.append(answer.status_code)

    errors = run_at_once([send for _ in range(AT_ONCE)])
    assert not errors and sorted(statuses) == [200] + [409] * (AT_ONCE - 1), statuses
    assert Event.objects.filter(campaign=world.campaign_a, action="damage").count() == 1
