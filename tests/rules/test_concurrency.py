"""Real concurrent connections against real PostgreSQL: no lost updates."""

import pytest

from campaigns.models import Campaign, Event
from characters.models import Character
from rules import actions, engine
from rules.damage import Attack, Gas
from tests.helpers import make_user, run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


def test_fifty_simultaneous_wounds_are_all_counted():
    gm = make_user("gm")
    campaign = Campaign.objects.create(name="Asedio", gm=gm)
    borin = Character.objects.create(campaign=campaign, name="Borin", constitution=12)

    def one_pg():
        actions.apply_damage(campaign.pk, [borin.pk], Attack(amount=1), by=gm)

    assert run_at_once([one_pg] * 50) == []
    borin.refresh_from_db()
    campaign.refresh_from_db()
    assert borin.pg == 120 - 50
    assert Event.objects.filter(campaign=campaign, action="damage").count() == 50
    assert campaign.version == 50


def test_damage_racing_an_advance_gives_one_of_the_two_orders():
    gm = make_user("gm")
    campaign = Campaign.objects.create(name="Carrera", gm=gm)
    aldara = Character.objects.create(campaign=campaign, name="Aldara", constitution=8)
    actions.apply_damage(campaign, [aldara], Attack(amount=10), by=gm)
    start = engine.Health(8, [engine.Wound("attack", 10)])
    hit = engine.Wound("gas", 5)  # gas recovers within the advance, so the order shows
    damage_first = engine.advance(engine.apply_wound(start, hit), 3 * engine.DAY).pg
    advance_first = engine.apply_wound(engine.advance(start, 3 * engine.DAY), hit).pg
    assert damage_first != advance_first  # the race is visible either way

    errors = run_at_once(
        [
            lambda: actions.apply_damage(campaign.pk, [aldara.pk], Gas(turns=5), by=gm),
            lambda: actions.advance_clock(campaign.pk, 3 * engine.DAY, by=gm),
        ]
    )
    assert errors == []
    aldara.refresh_from_db()
    assert aldara.pg in {damage_first, advance_first}
