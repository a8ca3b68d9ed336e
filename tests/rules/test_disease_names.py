"""Disease names are told apart as people tell them (issue 23): "peste", "PESTE" and "Péste" are "Peste". No two
active diseases a campaign can expose to share a name so, whoever makes them: the site admin, the GM, an import."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from rules import actions
from rules.actions import DiseaseSheet
from rules.actions.diseases import folded
from rules.models import Disease
from tests.helpers import World


@pytest.fixture
def admin(db) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", password="pw"))
    return client


def test_folded_names():
    assert folded(" Péste ") == folded("PESTE") == folded("peste") == "peste"
    assert folded("Fiebre del pantano") == folded("fiebre del PANTANO")
    assert folded("Gripe") != folded("Grippe")
    # what the eye cannot tell apart is one name: invisible characters, runs of spaces, full-width letters
    assert folded("Peste\u200b") == folded("Pe\u00adste") == folded("ＰＥＳＴＥ") == "peste"
    assert folded("Fiebre  del\u00a0pantano") == folded("fiebre del pantano")


@pytest.mark.parametrize("name", ["peste", "PÉSTE", "  Peste "])
def test_the_admin_cannot_make_a_shared_disease_named_as_a_built_in(admin, name: str):
    data = {"name": name, "category": "common", "penalty": "-1", "pg_per_week": ""}
    before = Disease.objects.count()
    response = admin.post("/admin/rules/disease/add/", data)
    assert response.status_code == 200 and "Ya hay una enfermedad activa con ese nombre: «Peste»" in response.text
    assert Disease.objects.count() == before


def test_the_admin_cannot_name_a_shared_disease_as_a_campaigns_own(world: World, admin):
    actions.add_disease(world.campaign_a, DiseaseSheet("Fiebre del pantano", "common", -1), by=world.gm_a)
    data = {"name": "fiebre del Pantano", "category": "common", "penalty": "-1", "pg_per_week": ""}
    response = admin.post("/admin/rules/disease/add/", data)
    assert "de la campaña «A»" in response.text
    assert not Disease.objects.filter(campaign=None, name__iexact="fiebre del pantano").exists()
    data["retired"] = "on"  # a retired one offers nothing to expose: no clash
    assert admin.post("/admin/rules/disease/add/", data).status_code == 302


@pytest.mark.parametrize("name", ["gripe", "GRÍPE", "Gripe\u200b", "Gri\u00adpe", "\u2003gripe", "ＧＲＩＰＥ"])
def test_the_gm_cannot_add_a_disease_named_as_a_built_in(world: World, name: str):
    with pytest.raises(actions.ActionError, match="Ya hay una enfermedad activa con este nombre") as refused:
        actions.add_disease(world.campaign_a, DiseaseSheet(name, "common", -1), by=world.gm_a)
    assert "«Gripe»" in str(refused.value)  # the one there, as it is spelled, so the GM can tell which
