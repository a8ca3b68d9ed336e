import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client

from rules import actions
from rules.models import Disease
from tests.helpers import World

BUILTIN = {
    "Resfrío común": ("common", -1, None),
    "Fiebre": ("common", -2, None),
    "Gripe": ("common", -2, None),
    "Peste": ("serious", -2, 1),
    "Tuberculosis": ("serious", -2, 2),
}


def test_the_five_builtin_diseases_come_from_the_migration(db):
    rows = {d.name: (d.category, d.penalty, d.pg_per_week) for d in Disease.objects.filter(builtin=True)}
    assert rows == BUILTIN


@pytest.mark.parametrize(
    "fields, field",
    [
        ({"category": "serious", "penalty": -1, "pg_per_week": None}, "pg_per_week"),
        ({"category": "serious", "penalty": -1, "pg_per_week": 0}, "pg_per_week"),
        ({"category": "common", "penalty": -1, "pg_per_week": 2}, "pg_per_week"),
        ({"category": "common", "penalty": 1, "pg_per_week": None}, "penalty"),
    ],
)
def test_disease_validation(db, fields, field):
    disease = Disease(name="Rara", **fields)
    with pytest.raises(ValidationError) as error:
        disease.full_clean()
    assert field in error.value.message_dict
    with pytest.raises(IntegrityError), transaction.atomic():
        disease.save()  # the database refuses it too


@pytest.fixture
def admin_client_(db) -> Client:
    admin = get_user_model().objects.create_superuser("root", password="pw")
    client = Client()
    client.force_login(admin)
    return client


def test_admin_lists_searches_and_filters(admin_client_):
    assert "Tuberculosis" in admin_client_.get("/admin/rules/disease/?q=tuber").content.decode()
    page = admin_client_.get("/admin/rules/disease/?category__exact=serious").content.decode()
    assert "Peste" in page and "Gripe" not in page


def test_admin_refuses_a_serious_disease_without_weekly_loss(admin_client_):
    response = admin_client_.post(
        "/admin/rules/disease/add/", {"name": "Cólera", "category": "serious", "penalty": "-3", "pg_per_week": ""}
    )
    assert response.status_code == 200 and "entre 1 y 100 PG por semana" in response.content.decode()
    assert not Disease.objects.filter(name="Cólera").exists()


def test_a_shared_disease_in_use_cannot_be_deleted_but_can_be_retired(world: World, admin_client_):
    shared = Disease.objects.create(name="Fiebre del hielo", category="serious", penalty=-1, pg_per_week=1)
    # 1d12 + CON 8 against 12: a 1 makes 9 and Aldara falls ill.
    actions.expose(world.campaign_a, [world.char_a1], shared, dice_by_character={world.char_a1.pk: 1}, by=world.gm_a)
    assert shared.illnesses.exists()
    response = admin_client_.post(f"/admin/rules/disease/{shared.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    assert Disease.objects.filter(pk=shared.pk).exists()
    admin_client_.post("/admin/rules/disease/", {"action": "retire", "_selected_action": [shared.pk]})
    shared.refresh_from_db()
    assert shared.retired


def test_a_campaigns_own_disease_is_read_only_in_the_admin(world: World, admin_client_):
    """A campaign's diseases belong to its GM, whose changes are logged and undoable: the admin only shows them."""
    custom = Disease.objects.create(name="Mal de altura", category="common", penalty=-1, campaign=world.campaign_a)
    before = list(Disease.objects.filter(pk=custom.pk).values())
    page = admin_client_.get(f"/admin/rules/disease/{custom.pk}/change/")
    assert page.status_code == 200 and 'name="name"' not in page.content.decode()  # shown, not editable
    response = admin_client_.post(
        f"/admin/rules/disease/{custom.pk}/change/",
        {"name": "Otra", "category": "serious", "penalty": "-5", "pg_per_week": "3"},
    )
    assert response.status_code == 403
    admin_client_.post("/admin/rules/disease/", {"action": "retire", "_selected_action": [custom.pk]})
    assert admin_client_.post(f"/admin/rules/disease/{custom.pk}/delete/", {"post": "yes"}).status_code == 403
    assert list(Disease.objects.filter(pk=custom.pk).values()) == before
