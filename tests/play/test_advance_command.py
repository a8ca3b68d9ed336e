import io

import pytest
from django.core.management import CommandError, call_command

from campaigns.models import Event
from characters.models import Character
from rules import actions, engine
from rules.damage import Attack
from tests.helpers import World


def test_advance_clock_by_name_with_rest(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    out = io.StringIO()
    call_command("advance_clock", "A", "2d", stdout=out)
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 2 * engine.DAY
    assert Character.objects.get(pk=world.char_a1.pk).pg == 77
    assert "Día 3, 00:00" in out.getvalue() and "Aldara: 77/80 PG" in out.getvalue()
    assert Event.objects.filter(campaign=world.campaign_a, action="advance").get().actor == world.gm_a


def test_advance_clock_no_rest_by_id(world: World):
    actions.apply_damage(world.campaign_a, [world.char_a1], Attack(amount=5), by=world.gm_a)
    call_command("advance_clock", str(world.campaign_a.pk), "1w", "--no-rest", stdout=io.StringIO())
    assert Character.objects.get(pk=world.char_a1.pk).pg == 75


@pytest.mark.parametrize("args", [("Nadie", "1d"), ("A", "mañana"), ("A", "0"), ("A", "-3h")])
def test_advance_clock_refuses_bad_input(world: World, args):
    with pytest.raises(CommandError):
        call_command("advance_clock", *args, stdout=io.StringIO())
    world.campaign_a.refresh_from_db()
    assert world.campaign_a.clock == 0
