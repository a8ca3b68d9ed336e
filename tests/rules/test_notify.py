"""The NOTIFY contract (rules/notify.py): a payload always fits PostgreSQL's limit and reads back, and the live updates
ignore what they do not understand."""

import json

import pytest
from django.db import connection, transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign
from characters.models import Character
from rules import actions, notify
from rules.damage import Gas
from rules.notify import Change
from tests.examples import examples
from tests.helpers import make_user, notify_listener

ids = st.integers(1, 2**63 - 1)


def fits(payload: str) -> bool:
    return len(payload.encode()) <= notify.LIMIT


# --- both ends, no database ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("characters", [(3, 1, 2), (7,), (), None])
@pytest.mark.parametrize("event, tab", [(None, ""), (99, ""), (99, "a1b2c3d4e5f6a1b2c3d4e5f6"), (None, "tab-0001")])
def test_a_normal_change_round_trips_exactly(characters, event, tab):
    change = Change(12, characters, event, tab)
    assert Change.parse(change.payload()) == change


def test_the_payload_names_the_campaign_the_characters_the_event_and_the_tab_only():
    assert json.loads(Change(12, (3, 4)).payload()) == {"campaign": 12, "characters": [3, 4]}
    assert json.loads(Change(12, (3,), 5, "a1b2c3d4").payload()) == {
        "campaign": 12,
        "characters": [3],
        "event": 5,
        "tab": "a1b2c3d4",
    }


@pytest.mark.parametrize(
    "value, tab",
    [
        ("a1b2c3d4e5f6a1b2c3d4e5f6", "a1b2c3d4e5f6a1b2c3d4e5f6"),
        ("tab-0001", "tab-0001"),
        ("a" * 40, "a" * 40),
        ("", ""),
        ("short", ""),  # fewer than 8
        ("a" * 41, ""),
        ("a1b2c3d4\n", ""),
        ("a1b2 c3d4", ""),
        ("a1b2c3d4\x00", ""),
        ("ａ１ｂ２ｃ３ｄ４", ""),  # letters and digits, but not ASCII ones
        (None, ""),
        (12345678, ""),
        (["a1b2c3d4"], ""),
    ],
)
def test_a_tab_is_what_a_browser_sends_or_nothing(value, tab):
    assert notify.tab_or_nothing(value) == tab
    if isinstance(value, str):
        parsed = Change.parse(json.dumps({"campaign": 1, "characters": [], "tab": value}))
        assert parsed == Change(1, (), None, tab)  # a forged tab is no tab: the change reaches every stream


def test_too_many_characters_fall_back_to_the_whole_campaign():
    change = Change(12, tuple(range(5000)), 77, "a1b2c3d4e5f6")
    assert len(json.dumps(list(change.characters)).encode()) > notify.LIMIT  # the list itself would not fit
    payload = change.payload()
    assert fits(payload)
    assert Change.parse(payload) == Change(12, None, 77, "a1b2c3d4e5f6")  # the event and the tab are kept


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


tabs = st.one_of(st.just(""), st.from_regex(notify.TAB, fullmatch=True))


@settings(max_examples=examples(200), deadline=None)
@given(ids, st.one_of(st.none(), st.lists(ids, max_size=1500).map(tuple)), st.one_of(st.none(), ids), tabs)
def test_every_payload_fits_and_reads_back_as_the_change_or_the_whole_campaign(campaign_id, characters, event, tab):
    change = Change(campaign_id, characters, event, tab)
    payload = change.payload()
    assert fits(payload)
    assert Change.parse(payload) in (change, Change(campaign_id, None, event, tab))
    if fits(json.dumps(change.message())):
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
        '{"campaign": 1, "characters": [1], "event": "2"}',
        '{"campaign": 1, "characters": [1], "event": 2.0}',
        '{"campaign": 1, "characters": [1], "event": true}',
        '{"campaign": 1, "characters": [1], "event": [2]}',
        '{"ended_session": "0123456789abcdef0123456789abcdef"}',  # a session that ended, not a change
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
        outcome = actions.apply_damage(campaign, everyone, Gas(turns=1), by=gm)
        [notice] = listener.notifies(timeout=5, stop_after=1)
    assert json.loads(notice.payload) == {"campaign": campaign.pk, "characters": None, "event": outcome.event.pk}
    assert Character.objects.filter(campaign=campaign, pg=99).count() == 2000


@pytest.mark.django_db(transaction=True)
def test_a_change_names_the_tab_the_action_was_taken_from_and_no_other():
    gm = make_user("gm")
    campaign = Campaign.objects.create(name="Mesa", gm=gm)
    ana = Character.objects.create(campaign=campaign, name="Ana", constitution=10)
    with notify_listener() as listener:
        first = actions.apply_damage(campaign, [ana], Gas(turns=1), by=actions.FromTab(gm, "a1b2c3d4e5f6"))
        second = actions.apply_damage(campaign, [ana], Gas(turns=1), by=gm)
        forged = actions.apply_damage(campaign, [ana], Gas(turns=1), by=actions.FromTab(gm, "a b"))
        notices = [json.loads(notice.payload) for notice in listener.notifies(timeout=5, stop_after=3)]
    assert first.event and second.event and forged.event
    assert notices == [
        {"campaign": campaign.pk, "characters": [ana.pk], "event": first.event.pk, "tab": "a1b2c3d4e5f6"},
        {"campaign": campaign.pk, "characters": [ana.pk], "event": second.event.pk},
        {"campaign": campaign.pk, "characters": [ana.pk], "event": forged.event.pk},  # no browser sends "a b"
    ]


@pytest.mark.django_db(transaction=True)
def test_an_action_notifies_with_its_event_what_send_would_and_nothing_before_its_commit():
    gm = make_user("gm")
    campaign = Campaign.objects.create(name="Mesa", gm=gm)
    party = [Character.objects.create(campaign=campaign, name=name, constitution=10) for name in ("Ana", "Bea")]
    with notify_listener() as listener:
        with transaction.atomic():
            outcome = actions.apply_damage(campaign, party, Gas(turns=1), by=actions.FromTab(gm, "a1b2c3d4e5f6"))
            assert list(listener.notifies(timeout=0.2, stop_after=1)) == []
        [notice] = listener.notifies(timeout=5, stop_after=1)
    assert outcome.event is not None
    assert Change.parse(notice.payload) == Change(
        campaign.pk, tuple(c.pk for c in party), outcome.event.pk, "a1b2c3d4e5f6"
    )


@pytest.mark.django_db(transaction=True)
def test_the_longest_list_that_fits_still_fits_with_the_biggest_event_id_put_in_by_postgresql():
    def listed(characters: list[int]) -> bool:
        return json.loads(Change(77, tuple(characters), None, "a" * 40).payload())["characters"] is not None

    longest = [2**63 - 1]
    while listed([*longest, 2**63 - 1]):  # the most 19-digit ids a payload lists
        longest.append(2**63 - 1)
    sql, params = notify.sent_with(("SELECT %s::bigint AS id", [2**63 - 1]), 77, longest, "a" * 40)
    with notify_listener() as listener:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        [notice] = listener.notifies(timeout=5, stop_after=1)
    assert len(notice.payload.encode()) < 8000
    assert Change.parse(notice.payload) == Change(77, tuple(longest), 2**63 - 1, "a" * 40)
