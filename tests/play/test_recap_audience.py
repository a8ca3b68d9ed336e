"""What each audience may read of a stretch of the log (play.log.recaps.seen_by): the GM everything; a player their own
characters in full, an EXACT companion's PG, a BAND companion's words only, and nothing at all of a hidden one."""

from __future__ import annotations

from campaigns import access
from campaigns.models import Campaign, Event
from characters.models import Character
from play.log.recaps import seen_by
from rules import actions
from rules.damage import Attack
from rules.stretches import stretch
from tests.helpers import World


def played(world: World) -> tuple[Campaign, Character, int]:
    """Borin shows one word (the campaign's view), Tomás his exact PG, Nyx nothing; all four are hurt in the stretch."""
    gm, campaign = world.gm_a, world.campaign_a
    nyx = actions.add_character(campaign, actions.Sheet("Nyx la Sombra", 4, party_view="hidden"), by=gm).characters[0]
    actions.edit_character(campaign, world.npc_a, actions.Sheet("Tomás", 5, party_view="exact"), by=gm)
    start = Event.objects.filter(campaign=campaign).order_by("-id").first()
    everyone = [world.char_a1, world.char_a2, world.npc_a, nyx]
    actions.apply_damage(campaign, everyone, Attack(amount=3), by=gm)
    actions.apply_damage(campaign, [nyx], Attack(amount=100), by=gm)
    assert start is not None
    return Campaign.objects.get(pk=campaign.pk), nyx, start.pk


def test_the_gm_reads_everyone_in_full(world: World):
    campaign, nyx, start = played(world)
    seen = seen_by(stretch(campaign, start, None), access.roster_of(campaign), access.table_of(campaign))
    assert [row.name for row in seen.characters] == ["Aldara", "Borin", "Nyx la Sombra", "Tomás"]
    assert seen.entries == 2 and seen.companions == []


def test_a_player_reads_their_own_in_full_and_companions_as_the_party_view_allows(world: World):
    campaign, nyx, start = played(world)
    audience = access.audience_of(world.player_a, campaign)
    seen = seen_by(stretch(campaign, start, None), access.roster_of(campaign), audience)

    [own] = seen.characters
    assert own.name == "Aldara" and own.wounds["attack"].count == 1
    borin, tomas = seen.companions
    assert (borin.name, borin.exact, borin.pg_start, borin.pg_end) == ("Borin", False, None, None)
    assert (borin.word_start, borin.word_end) == ("Ileso", "Herido")
    assert (tomas.name, tomas.exact, tomas.pg_start, tomas.pg_end, tomas.max_pg) == ("Tomás", True, 50, 47, 50)
    assert seen.entries is None  # a count would tell of Nyx's wound
    assert "Nyx" not in repr(seen) and f"pk={nyx.pk}," not in repr(seen)


def test_a_member_who_plays_no_one_reads_nothing(world: World):
    campaign, _nyx, _start = played(world)
    Character.objects.filter(player=world.player_a2).update(player=None)
    audience = access.audience_of(world.player_a2, campaign)
    seen = seen_by(stretch(campaign, None, None), access.roster_of(campaign), audience)
    assert seen.empty and seen.entries is None
