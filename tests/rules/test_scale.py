"""An action's query count does not grow with the number of characters."""

import pytest

from campaigns.models import Campaign
from characters.models import Character
from rules import actions, engine, mapping
from rules.damage import Gas
from rules.models import Disease, Illness, Wound
from tests.helpers import make_user

pytestmark = pytest.mark.django_db

ADVANCE_QUERIES = 14  # measured: 13 at 50 and at 500 characters


def crowded_campaign(size: int) -> Campaign:
    """`size` characters, each with 3 wounds and an illness (rows made directly: this test is about the action)."""
    gm = make_user(f"gm{size}")
    campaign = Campaign.objects.create(name=f"Horda {size}", gm=gm)
    characters = Character.objects.bulk_create(
        Character(campaign=campaign, name=f"Soldado {n}", constitution=10, pg=100 - 9) for n in range(size)
    )
    plague = Disease.objects.get(name="Peste")
    Wound.objects.bulk_create(
        Wound(character=c, kind=kind, amount=3, remaining=3, inflicted_at=0)
        for c in characters
        for kind in ("attack", "gas", "fall")
    )
    Illness.objects.bulk_create(
        Illness(character=c, disease=plague, category="serious", penalty=-2, pg_per_week=1, since=0) for c in characters
    )
    return campaign


@pytest.mark.parametrize("size", [50, 500])
def test_advancing_a_crowded_campaign_costs_the_same_queries(size, django_assert_max_num_queries):
    campaign = crowded_campaign(size)
    gm = campaign.gm
    with django_assert_max_num_queries(ADVANCE_QUERIES):
        actions.advance_clock(campaign.pk, 365 * engine.DAY, by=gm)
    sample = Character.objects.filter(campaign=campaign).order_by("id").first()
    wounds = list(Wound.objects.filter(character=sample).order_by("id"))
    illnesses = list(Illness.objects.filter(character=sample).select_related("disease").order_by("id"))
    campaign.refresh_from_db()
    assert sample.pg == mapping.health_of(sample, wounds, illnesses, campaign.clock).pg
    # A year of plague at 1 PG a week: 52 weekly wounds on top of the 3 first ones, stored as one row that grows.
    assert len(wounds) == 3 + 1 and (wounds[-1].times, wounds[-1].every) == (52, engine.WEEK)
    assert len(mapping.health_of(sample, wounds, illnesses, campaign.clock).wounds) == 3 + 52


@pytest.mark.parametrize("size", [50, 500])
def test_damaging_everyone_costs_the_same_queries(size, django_assert_max_num_queries):
    campaign = crowded_campaign(size)
    everyone = list(campaign.characters.values_list("pk", flat=True))
    with django_assert_max_num_queries(ADVANCE_QUERIES):
        actions.apply_damage(campaign.pk, everyone, Gas(turns=2), by=campaign.gm)
    with django_assert_max_num_queries(ADVANCE_QUERIES):
        actions.undo(campaign.pk, by=campaign.gm)
