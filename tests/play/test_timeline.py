"""The PG timeline: drawn from the log's states, exact inside long advances (the engine replays them), with a marker
per wound, illness, cure, treatment and death, and the penalty bands behind."""

from django.template.loader import render_to_string

from campaigns.models import Campaign
from characters.models import Character
from play.screens.timeline import SAMPLES, timeline_for
from rules import actions, engine
from rules.damage import Attack
from rules.models import Disease, Illness
from tests.helpers import reload


def test_the_line_follows_the_log_and_ends_at_the_pg_now(world, django_assert_max_num_queries):
    campaign, gm, patient, healer = world.campaign_a, world.gm_a, world.char_a1, world.npc_a
    Character.objects.filter(pk=healer.pk).update(heal_wounds=2)
    actions.apply_damage(campaign, [patient], Attack(amount=20), by=gm)
    actions.treat_wounds(campaign, patient, healer, by=gm)
    plague = Disease.objects.get(name="Peste", builtin=True)
    actions.expose(campaign, [patient], plague, dice_by_character={patient.pk: 1}, by=gm)
    actions.advance_clock(campaign, 3 * engine.WEEK, by=gm)
    [episode] = Illness.objects.filter(character=patient)
    actions.treat_illness(campaign, patient, episode, healer, by=gm)
    actions.medicate(campaign, patient, episode, by=gm)
    actions.apply_damage(campaign, [patient], Attack(amount=5), by=gm)
    actions.undo(campaign, by=gm)  # the last attack never happened: no marker, no drop

    campaign = Campaign.objects.get(pk=campaign.pk)
    patient = reload(patient)
    with django_assert_max_num_queries(1):  # the character's events, however many
        timeline = timeline_for(campaign, patient)
    assert timeline_for(campaign, patient) == timeline  # drawn again, the same chart
    kinds = [marker.kind for marker in timeline.markers]
    assert kinds == ["attack", "treated", "ill", "treated", "cured"]
    # the illness treated and the medicine at one moment: one circle that names both, then the cure
    assert timeline.markers[3].label.splitlines() == [
        "Día 22, 00:00 — Peste tratada",
        "Día 22, 00:00 — Medicamentos para Peste",
    ]
    assert timeline.markers[0].label.endswith("Ataque físico directo −20")
    assert timeline.top == 80
    # Inside the three weeks the line is the engine's own: it rises as the attack heals (treated: 2 PG a day)
    # and drops at each weekly loss.
    assert timeline.path.count(" H") >= SAMPLES
    html = render_to_string("components/timeline.html", {"timeline": timeline})
    assert 'role="img"' in html and "Aldara" in html and f"de 80 a {patient.pg}" in html
    assert html.count('class="marker attack"') == 2  # on the chart and in the legend


def test_death_inside_an_advance_is_marked_when_it_happened(world):
    campaign, gm, patient = world.campaign_a, world.gm_a, world.char_a1
    actions.apply_damage(campaign, [patient], Attack(amount=78), by=gm)
    tuberculosis = Disease.objects.get(name="Tuberculosis", builtin=True)
    actions.expose(campaign, [patient], tuberculosis, dice_by_character={patient.pk: 1}, by=gm)
    actions.advance_clock(campaign, 4 * engine.WEEK, resting=[], by=gm)  # no rest: nothing heals
    timeline = timeline_for(Campaign.objects.get(pk=campaign.pk), reload(patient))
    [died] = [marker for marker in timeline.markers if marker.kind == "died"]
    assert (died.at, died.pg) == (engine.WEEK, 0)  # 2 PG left, 2 PG a week: dead at the first weekly loss
    assert "Día 8, 00:00" in died.label


def test_a_character_with_no_history_is_a_flat_line(world):
    timeline = timeline_for(world.campaign_a, world.char_a2)
    assert timeline.markers == [] and timeline.path.startswith("M")
    assert render_to_string("components/timeline.html", {"timeline": timeline})
