"""Issue 48: what one campaign may hold beyond its characters is capped by the site (config.settings): quick NPCs'
templates, its own diseases (retired ones too) and game sessions. Reaching a cap is refused in words and changes
nothing; below it, nothing changes. (An import stops at the same caps: tests/campaigns/test_backup_limits.py.)"""

from __future__ import annotations

from campaigns.models import GameSession
from characters.models import NpcTemplate
from rules import actions
from rules.models import Disease
from tests.helpers import World, refused


def test_a_campaign_holds_at_most_the_sites_templates(world: World, settings):
    settings.NPC_TEMPLATES_PER_CAMPAIGN = 2
    a, gm = world.campaign_a, world.gm_a
    actions.save_template(a, actions.Sheet("Guardia", 6), 4, by=gm)
    actions.save_template(a, actions.Sheet("Lobo", 3), 2, by=gm)
    error = refused(world, lambda: actions.save_template(a, actions.Sheet("Bandido", 5), 3, by=gm))
    assert error.message == (
        "La campaña ya tiene 2 plantillas, el máximo de este sitio: borra alguna para guardar otra."
    )
    assert error.field == "name"
    actions.save_template(a, actions.Sheet("Guardia", 7), 4, by=gm)  # saving one again keeps the count
    actions.delete_template(a, NpcTemplate.objects.get(campaign=a, name="Lobo"), by=gm)
    actions.save_template(a, actions.Sheet("Bandido", 5), 3, by=gm)
    assert sorted(NpcTemplate.objects.filter(campaign=a).values_list("name", flat=True)) == ["Bandido", "Guardia"]


def test_a_campaign_holds_at_most_the_sites_diseases_retired_ones_too(world: World, settings):
    settings.DISEASES_PER_CAMPAIGN = 2
    a, gm = world.campaign_a, world.gm_a
    actions.add_disease(a, actions.DiseaseSheet("Fiebre del pantano", "serious", -2, 1), by=gm)
    actions.add_disease(a, actions.DiseaseSheet("Tos de la cripta", "common", -1), by=gm)
    actions.retire_disease(a, Disease.objects.get(campaign=a, name="Tos de la cripta"), by=gm)
    sheet = actions.DiseaseSheet("Sarna roja", "common", -1)
    error = refused(world, lambda: actions.add_disease(a, sheet, by=gm))
    assert error.message == "La campaña ya tiene 2 enfermedades propias (y retiradas), el máximo de este sitio."
    assert Disease.objects.filter(campaign=a).count() == 2


def test_a_campaign_plays_at_most_the_sites_sessions(world: World, settings):
    settings.SESSIONS_PER_CAMPAIGN = 2
    a, gm = world.campaign_a, world.gm_a
    for _session in range(2):
        actions.start_session(a, by=gm)
        actions.end_session(a, by=gm)
    error = refused(world, lambda: actions.start_session(a, by=gm))
    assert error.message == "La campaña ya ha jugado 2 sesiones, el máximo de este sitio."
    assert error.field == "session"
    assert GameSession.objects.filter(campaign=a).count() == 2
    actions.undo(a, by=gm)  # the second session's end, then its start: one may be started again
    actions.undo(a, by=gm)
    actions.start_session(a, by=gm)
    assert GameSession.objects.filter(campaign=a).count() == 2
