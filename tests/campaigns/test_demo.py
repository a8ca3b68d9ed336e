from django.core.management import call_command

from campaigns.models import Campaign, Invitation
from characters.models import Character


def demo() -> Campaign:
    return Campaign.objects.get(name="La Cripta de Hielo")


def test_load_demo_twice_neither_fails_nor_duplicates(db):
    call_command("load_demo")
    call_command("load_demo")
    assert Campaign.objects.filter(name="La Cripta de Hielo").count() == 1
    campaign = demo()
    assert Character.objects.filter(campaign=campaign).count() == 4
    assert Invitation.objects.filter(campaign=campaign).count() == 1
    # Four characters and Sibila's invitation are logged like any change, then the five events of the adventure.
    assert campaign.events.count() == 10


def test_the_demo_has_a_gm_two_players_and_an_open_invitation(db):
    call_command("load_demo")
    campaign = demo()
    assert campaign.gm.username == "narrador"
    assert sorted(campaign.memberships.values_list("user__username", flat=True)) == ["ana", "bruno"]
    assert Character.objects.filter(campaign=campaign, player=None).count() == 2  # the NPC and the invited one
    assert Invitation.objects.get(campaign=campaign).claimed_by is None


def test_the_demo_starts_mid_adventure(db):
    call_command("load_demo")
    campaign = demo()
    borin = Character.objects.get(campaign=campaign, name="Borin")
    assert borin.pg < borin.max_pg and borin.wounds.filter(treated=True).exists()
    assert campaign.events.count() == 10 and campaign.clock == 2 * 3600


def test_demo_gm_can_log_in_and_open_the_campaign(db, client):
    call_command("load_demo")
    response = client.post("/accounts/login/", {"username": "narrador", "password": "cripta-narrador"})
    assert response.status_code == 302
    page = client.get(f"/campaigns/{demo().pk}/").content.decode()
    assert "Aldara" in page and "Hermano Tomás" in page
