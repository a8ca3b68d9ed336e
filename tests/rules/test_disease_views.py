import pytest
from django.urls import reverse

from rules.models import Disease
from tests.helpers import World, client_for

SERIOUS = {"name": "Fiebre del pantano", "category": "serious", "penalty": "-3", "pg_per_week": "2"}
COMMON = {"name": "Tos seca", "category": "common", "penalty": "-1", "pg_per_week": ""}


def url(name: str, world: World, disease: Disease | None = None, campaign=None) -> str:
    kwargs = {"campaign_id": (campaign or world.campaign_a).pk}
    if disease is not None:
        kwargs["disease_id"] = disease.pk
    return reverse(name, kwargs=kwargs)


@pytest.fixture
def custom(world: World) -> Disease:
    return Disease.objects.create(name="Mal de altura", category="common", penalty=-1, campaign=world.campaign_a)


@pytest.fixture
def foreign(world: World) -> Disease:
    return Disease.objects.create(name="Ajena", category="common", penalty=-2, campaign=world.campaign_b)


def diseases_state() -> list[tuple]:
    return list(
        Disease.objects.order_by("pk").values_list("name", "category", "penalty", "pg_per_week", "campaign", "retired")
    )


def test_gm_sees_own_retired_and_builtin_diseases(world: World, custom: Disease, foreign: Disease):
    Disease.objects.create(name="Olvidada", category="common", penalty=0, campaign=world.campaign_a, retired=True)
    response = client_for(world.gm_a).get(url("diseases", world))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Mal de altura" in page and "Olvidada" in page and "retirada" in page
    assert "Tuberculosis" in page  # built-in, for reference
    assert "Ajena" not in page
    assert url("disease_edit", world, custom) in page
    assert reverse("campaign", kwargs={"campaign_id": world.campaign_a.pk}) in page


@pytest.mark.parametrize("data, pg_per_week", [(SERIOUS, 2), (COMMON, None)])
def test_gm_creates_a_disease(world: World, data: dict, pg_per_week):
    client = client_for(world.gm_a)
    assert client.get(url("disease_create", world)).status_code == 200
    response = client.post(url("disease_create", world), data)
    assert response.status_code == 302 and response.url == url("diseases", world)
    disease = Disease.objects.get(name=data["name"])
    assert (
        disease.campaign,
        disease.category,
        disease.penalty,
        disease.pg_per_week,
        disease.builtin,
        disease.retired,
    ) == (world.campaign_a, data["category"], int(data["penalty"]), pg_per_week, False, False)
    assert "creada" in client.get(response.url).content.decode()


def test_a_new_disease_can_be_caught_in_its_campaign_only(world: World):
    client_for(world.gm_a).post(url("disease_create", world), SERIOUS)
    disease = Disease.objects.get(name=SERIOUS["name"])
    assert Disease.objects.available_in(world.campaign_a).filter(pk=disease.pk).exists()
    assert not Disease.objects.available_in(world.campaign_b).filter(pk=disease.pk).exists()


def test_gm_edits_a_disease(world: World, custom: Disease):
    client = client_for(world.gm_a)
    assert client.get(url("disease_edit", world, custom)).status_code == 200
    response = client.post(url("disease_edit", world, custom), {**SERIOUS, "name": "Mal de altura grave"})
    assert response.status_code == 302
    custom.refresh_from_db()
    assert (custom.name, custom.category, custom.penalty, custom.pg_per_week) == (
        "Mal de altura grave",
        "serious",
        -3,
        2,
    )
    # Keeping its own name is no clash with itself.
    assert client.post(url("disease_edit", world, custom), {**SERIOUS, "name": custom.name}).status_code == 302


def test_gm_retires_a_disease(world: World, custom: Disease):
    client = client_for(world.gm_a)
    response = client.post(url("disease_retire", world, custom))
    assert response.status_code == 302 and response.url == url("diseases", world)
    custom.refresh_from_db()
    assert custom.retired and not Disease.objects.available_in(world.campaign_a).filter(pk=custom.pk).exists()
    assert "Recuperar" in client.get(url("diseases", world)).content.decode()


def test_gm_brings_back_a_retired_disease(world: World, custom: Disease):
    Disease.objects.filter(pk=custom.pk).update(retired=True)
    assert client_for(world.gm_a).post(url("disease_retire", world, custom)).status_code == 302
    custom.refresh_from_db()
    assert not custom.retired and Disease.objects.available_in(world.campaign_a).filter(pk=custom.pk).exists()


def test_retiring_needs_a_post(world: World, custom: Disease):
    assert client_for(world.gm_a).get(url("disease_retire", world, custom)).status_code == 405
    assert not Disease.objects.get(pk=custom.pk).retired


def test_bringing_back_refuses_a_name_now_in_use(world: World, custom: Disease):
    custom.retired = True
    custom.save()
    Disease.objects.create(name="MAL DE ALTURA", category="common", penalty=-2, campaign=world.campaign_a)
    client = client_for(world.gm_a)
    response = client.post(url("disease_retire", world, custom), follow=True)
    assert "ya hay una enfermedad activa con ese nombre" in response.content.decode()
    custom.refresh_from_db()
    assert custom.retired


BAD = [
    ({**SERIOUS, "pg_per_week": ""}, "pg_per_week", "Una enfermedad grave pierde entre 1 y 100 PG por semana."),
    ({**SERIOUS, "pg_per_week": "0"}, "pg_per_week", "mayor o igual a 1."),
    ({**COMMON, "pg_per_week": "2"}, "pg_per_week", "deja este campo vacío"),
    ({**COMMON, "penalty": "1"}, "penalty", "0 o negativa"),
    ({**COMMON, "penalty": "mucho"}, "penalty", "número entero"),
    ({**COMMON, "penalty": "99999999999"}, "penalty", "0 o negativa"),
    ({**COMMON, "penalty": "-99999999999"}, "penalty", "La penalización debe estar entre −20 y 0."),
    ({**SERIOUS, "pg_per_week": "99999999999"}, "pg_per_week", "menor o igual a 100."),
    ({**SERIOUS, "pg_per_week": "dos"}, "pg_per_week", "número entero"),
    ({**COMMON, "name": "x" * 10_000}, "name", "Escribe como mucho 80 caracteres (tiene 10000)."),
    ({**COMMON, "name": ""}, "name", "obligatorio"),
    ({**COMMON, "category": "mortal"}, "category", "Elige una opción válida: mortal no está entre las disponibles."),
    ({**COMMON, "name": "gripe"}, "name", "Ya hay una enfermedad activa con este nombre"),  # a built-in's name
]


@pytest.mark.parametrize("data, field, message", BAD)
def test_bad_input_on_create_is_400_and_changes_nothing(world: World, data: dict, field: str, message: str):
    before = diseases_state()
    response = client_for(world.gm_a).post(url("disease_create", world), data)
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert message in " ".join(response.context["form"].errors[field])
    assert message in response.content.decode().replace("&#x27;", "'")
    assert diseases_state() == before


@pytest.mark.parametrize("data, field, message", BAD)
def test_bad_input_on_edit_is_400_and_changes_nothing(
    world: World, custom: Disease, data: dict, field: str, message: str
):
    before = diseases_state()
    response = client_for(world.gm_a).post(url("disease_edit", world, custom), data)
    assert response.status_code == 400
    assert message in " ".join(response.context["form"].errors[field])
    assert "Mal de altura" in response.content.decode()  # the heading names the saved disease, not the bad input
    assert diseases_state() == before


def test_same_name_as_a_retired_or_another_campaigns_disease_is_allowed(
    world: World, custom: Disease, foreign: Disease
):
    custom.retired = True
    custom.save()
    client = client_for(world.gm_a)
    for name in ("Mal de altura", "Ajena"):
        assert client.post(url("disease_create", world), {**COMMON, "name": name}).status_code == 302
    assert Disease.objects.filter(campaign=world.campaign_a, retired=False).count() == 2


@pytest.mark.parametrize("name", ["disease_edit", "disease_retire"])
def test_another_campaigns_disease_or_a_builtin_is_404(world: World, foreign: Disease, name: str):
    builtin = Disease.objects.get(name="Peste", builtin=True)
    global_ = Disease.objects.create(name="Global", category="common", penalty=-1)
    before = diseases_state()
    client = client_for(world.gm_a)
    for disease in (foreign, builtin, global_):
        assert client.get(url(name, world, disease)).status_code == (405 if name == "disease_retire" else 404)
        assert client.post(url(name, world, disease), COMMON).status_code == 404
    # Nor under its own campaign's URL: gm_a is not campaign B's GM.
    assert client.post(url(name, world, foreign, campaign=world.campaign_b), COMMON).status_code == 404
    assert diseases_state() == before


@pytest.mark.parametrize("persona", ["player_a", "player_a2", "gm_b", "outsider"])
def test_others_get_404_everywhere_and_change_nothing(world: World, custom: Disease, persona: str):
    client = client_for(getattr(world, persona))
    before = diseases_state()
    responses = [
        client.get(url("diseases", world)),
        client.get(url("disease_create", world)),
        client.post(url("disease_create", world), SERIOUS),
        client.get(url("disease_edit", world, custom)),
        client.post(url("disease_edit", world, custom), SERIOUS),
        client.post(url("disease_retire", world, custom)),
    ]
    assert [r.status_code for r in responses] == [404] * 6
    assert diseases_state() == before


def test_anonymous_is_sent_to_login(world: World, custom: Disease):
    client = client_for(None)
    for response in (client.get(url("diseases", world)), client.post(url("disease_retire", world, custom))):
        assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert not Disease.objects.get(pk=custom.pk).retired
