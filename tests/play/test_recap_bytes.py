"""Issue 25: over random sessions, a player's recap holds not one byte about a companion kept secret from them — not
its name, not its id — and every character of theirs the session touched is in it."""

import contextlib

from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign
from characters.models import Character
from rules import actions
from tests.examples import examples
from tests.helpers import World, client_for
from tests.played import play_health

who = st.integers(0, 3)
step = st.one_of(
    st.tuples(st.just("attack"), st.integers(0, 30), st.sets(who, min_size=1, max_size=4)),
    st.tuples(st.just("advance"), st.integers(60, 9 * 86400), st.booleans()),
    st.tuples(st.just("expose"), st.integers(0, 7), st.integers(1, 12), who),
    st.tuples(st.just("fall"), st.integers(0, 12), st.integers(1, 20), who),
    st.tuples(st.just("treat_wounds"), who),
    st.tuples(st.just("exertion"), st.integers(1, 12), who),
)


@settings(max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=8), healer_hidden=st.booleans())
def test_a_players_recap_holds_nothing_of_a_hidden_companion(world: World, steps, healer_hidden: bool):
    a, gm = world.campaign_a, world.gm_a
    savepoint = transaction.savepoint_create()
    try:
        secret = actions.add_character(a, actions.Sheet("Zafira Umbría", 6, party_view="hidden"), by=gm).characters[0]
        view = "hidden" if healer_hidden else "exact"
        actions.edit_character(a, world.npc_a, actions.Sheet("Tomás", 5, heal_wounds=6, party_view=view), by=gm)
        actions.start_session(a, by=gm)
        for name, *args in steps:
            with contextlib.suppress(actions.ActionError):  # what the rules refuse (care for the dead…)
                play_health(world, name, args)
        actions.end_session(a, by=gm)
        actions.share_recap(a, 1, by=gm)
        response = client_for(world.player_a).get(reverse("session_recap", args=[a.pk, 1]))
        assert response.status_code == 200
        body = response.content
        hidden = [secret, *([Character.objects.get(pk=world.npc_a.pk)] if healer_hidden else [])]
        for character in hidden:
            assert character.name.encode() not in body
            assert f"recap-{character.pk}".encode() not in body and f"timeline-{character.pk}".encode() not in body
        if any(Campaign.objects.get(pk=a.pk).events.filter(characters__contains=[world.char_a1.pk], undone=False)):
            assert b">Aldara</h2>" in body
    finally:
        transaction.savepoint_rollback(savepoint)
