"""The NOTIFY contract (rules/notify.py): a payload always fits PostgreSQL's limit and reads back, and the live updates
ignore what they do not understand."""

import json

import pytest
from django.db import transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign
from characters.models import Character
from rules import actions, notify
from rules.damage import Gas
from rules.notify import Change
from tests.helpers import make_user, notify_listener

ids = st.integers(1, 2**63 - 1)


def fits(payload: str) -> bool:
    return len(payload.encode()) <= notify.LIMIT


# --- both ends, no database ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("characters", [(3, 1, 2), (7,), (), None])
def test_a_normal_change_round_trips_exactly(characters):
    change = Change(12, characters)
    assert Change.parse(change.payload()) == change


def test_the_payload_names_the_campaign_and_the_characters_only():
    assert json.loads(Change(12, (3, 4)).payload()) == {"campaign": 12, "characters": [3, 4]}


def test_too_many_characters_fall_back_to_the_whole_campaign():
    change = Change(12, tuple(range(5000)))
    assert len(json.dumps(list(change.characters)).encode()) > notify.LIMIT  # the list itself would not fit
    payload = change.payload()
    assert fits(payload)
    assert Change.parse(payload) == Change(12, None)


def test_the_longest_list_that_fits_is_kept_and_one_more_falls_back():
    def payload_of(count: int) -> str:
        return json.dumps({"campaign": 12, "characters": list(range(10_000, 10_000 + count))})

    low, high = 0, 5000  # the longest list that fits lies in between: bisect for it
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(payload_of(middle)) else (low, middle - 1)
    longest = tuple(range(10_000, 10_000 + low))
    assert Change.parse(Change(12, longest).payload()) == Change(12, longest)
    assert Change.parse(Change(12, (*longest, 99_999)).payload()) == Change(12, None)


@settings(max_examples=200, deadline=None)
@given(ids, st.one_of(st.none(), st.lists(ids, max_size=1500).map(tuple)))
def test_every_payload_fits_and_reads_back_as_the_change_or_the_whole_campaign(campaign_id, characters):
    change = Change(campaign_id, characters)
    payload = change.payload()
    assert fits(payload)
    assert Change.parse(payload) in (change, Change(campaign_id, None))
    if fits(json.dumps({"campaign": campaign_id, "characters": characters})):
        assert Change.parse(payload) == change


@pytest.mark.parametrize(
    "payload",
    [
        "",
        "not json",
        "{",
        "null",
        "42",
        '"campaign"',
        "[1, [2, 3]]",
        '{"campaign": 1}',  # no characters
        '{"characters": [1]}',  # no campaign
        "{}",
        '{"campaign": "1", "characters": [1]}',
        '{"campaign": 1.0, "characters": [1]}',
        '{"campaign": true, "characters": [1]}',
        '{"campaign": null, "characters": null}',
        '{"campaign": 1, "characters": ["2"]}',
        '{"campaign": 1, "characters": [2.0]}',
        '{"campaign": 1, "characters": [true]}',
        '{"campaign": 1, "characters": [2, false]}',
        '{"campaign": 1, "characters": [null]}',
        '{"campaign": 1, "characters": 2}',
        '{"campaign": 1, "characters": "2"}',
        '{"campaign": 1, "characters": {"2": 2}}',
    ],
)
def test_an_odd_payload_is_ignored(payload):
    assert Change.parse(payload) is None


# --- through PostgreSQL ----------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_huge_id_list_is_sent_as_the_whole_campaign_on_commit():
    with notify_listener() as listener:
        with transaction.atomic():
            notify.send(77, range(5000))  # PostgreSQL refuses a payload this long: the fallback must kick in
            assert list(listener.notifies(timeout=0.2, stop_after=1)) == []  # nothing before the commit
        [notice] = listener.notifies(timeout=5, stop_after=1)
    assert notice.channel == notify.CHANNEL
    assert fits(notice.payload)
    assert json.loads(notice.payload) == {"campaign": 77, "characters": None}


@pytest.mark.django_db(transaction=True)
def test_an_action_on_a_crowd_notifies_the_whole_campaign():
    gm = make_user("gm")
    campaign = Campaign.objects.create(name="Horda", gm=gm)
    crowd = Character.objects.bulk_create(
        Character(campaign=campaign, name=f"Soldado {n}", constitution=10, pg=100) for n in range(2000)
    )
    everyone = [c.pk for c in crowd]
    assert not fits(json.dumps({"campaign": campaign.pk, "characters": everyone}))
    with notify_listener() as listener:
        actions.apply_damage(campaign, everyone, Gas(turns=1), by=gm)
        [notice] = listener.notifies(timeout=5, stop_after=1)
    assert json.loads(notice.payload) == {"campaign": campaign.pk, "characters": None}
    assert Character.objects.filter(campaign=campaign, pg=99).count() == 2000
