"""Issue 48, item 13: a chart whose changes share one campaign second (the blows of one fight, a session in which no
time passed) is no flat line: each change takes a step of its own, in the log's order, and its marker sits on it."""

import re

from campaigns.models import Campaign
from play.screens.timeline import STEPS_SHARE, steps_of, timeline_for
from rules import actions
from rules.damage import Attack, Fall
from tests.helpers import reload


def xs(path: str) -> list[float]:
    return [float(found) for found in re.findall(r"H([0-9.]+)", path)]


def test_blows_at_one_second_are_steps_in_the_logs_order(world):
    campaign, gm, patient = world.campaign_a, world.gm_a, world.char_a1
    for amount in (5, 7, 3):
        actions.apply_damage(campaign, [patient], Attack(amount=amount), by=gm)
    timeline = timeline_for(Campaign.objects.get(pk=campaign.pk), reload(patient))
    across = xs(timeline.path)
    assert len(across) == 3 and across == sorted(across) and len(set(across)) == 3  # three steps, left to right
    assert across[-1] == timeline.right  # the whole width: no time passed
    assert [marker.x for marker in timeline.markers] == across  # each blow's marker on its own step


def test_time_keeps_most_of_the_width_when_it_passed_too(world):
    campaign, gm, patient = world.campaign_a, world.gm_a, world.char_a1
    actions.apply_damage(campaign, [patient], Attack(amount=5), by=gm)
    actions.apply_damage(campaign, [patient], Fall(height_m=4, dice={patient.pk: 1}), by=gm)
    actions.advance_clock(campaign, 3600, by=gm)
    timeline = timeline_for(Campaign.objects.get(pk=campaign.pk), reload(patient))
    kinds = {marker.kind: marker.x for marker in timeline.markers}
    assert timeline.left < kinds["attack"] < kinds["fall"] < timeline.left + STEPS_SHARE * timeline.plot_width


def test_steps_count_changes_at_the_second_before_only():
    assert steps_of([(0, 10), (0, 7), (0, 7), (5, 9), (5, 4), (9, 4)]) == [0, 1, 1, 1, 2, 2]
