"""Loads the demo campaign «La Cripta de Hielo». Running it again changes nothing."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from django.db import transaction

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules import actions
from rules.damage import Attack, Fall, Gas
from rules.engine import HOUR
from rules.models import Disease

DEMO_CAMPAIGN = "La Cripta de Hielo"
# username → password; printed by `make run` so that a newcomer can log in at once.
DEMO_USERS = {"narrador": "cripta-narrador", "ana": "cripta-ana", "bruno": "cripta-bruno"}
DEMO_ADMIN = ("admin", "cripta-admin")


class Command(BaseCommand):
    help = "Creates the demo campaign, its GM, two players and four characters (idempotent)."

    def handle(self, *args: object, **options: object) -> None:
        if not settings.DEMO:
            self.stdout.write("No demo data: DEBUG is off (DEMO=1 loads it anyway, with its public passwords).")
            return
        self.load()

    @transaction.atomic
    def load(self) -> None:
        Disease.objects.ensure_builtin()
        User = get_user_model()
        users = {}
        for username, password in DEMO_USERS.items():
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.save()
            users[username] = user
        admin, created = User.objects.get_or_create(
            username=DEMO_ADMIN[0], defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            admin.set_password(DEMO_ADMIN[1])
            admin.save()

        campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN, gm=users["narrador"]).first()
        if campaign is None:
            campaign = actions.create_campaign(DEMO_CAMPAIGN, users["narrador"])
            for player in ("ana", "bruno"):
                Membership.objects.create(campaign=campaign, user=users[player])
            gm, ana, bruno = users["narrador"], users["ana"], users["bruno"]
            sheets = [
                actions.Sheet("Aldara", 8, 6, 4, 62, "Exploradora del paso norte.", ana.pk),
                actions.Sheet("Borin", 12, 2, 0, 95, "Herrero enano, lleva cota de malla.", bruno.pk),
                actions.Sheet("Sibila", 6, 4, 2, 55, "Sin jugador todavía: tiene una invitación pendiente."),
                actions.Sheet("Hermano Tomás", 5, 0, 9, 70, "PNJ: el curandero del monasterio."),
            ]
            # Through the GM's own actions, so that the campaign log tells the story from the start.
            characters = [actions.add_character(campaign, sheet, by=gm).characters[0] for sheet in sheets]
            aldara, borin, sibila, tomas = characters
            actions.create_invitation(campaign, sibila, by=gm)
            self.wound_the_party(campaign, users["narrador"], aldara, borin, sibila, tomas)
            self.stdout.write(f"Demo campaign «{DEMO_CAMPAIGN}» created.")
        self.stdout.write("Demo logins (user / password):")
        for username, password in [*DEMO_USERS.items(), DEMO_ADMIN]:
            self.stdout.write(f"  {username:10} {password}")

    def wound_the_party(
        self, campaign: Campaign, gm: User, aldara: Character, borin: Character, sibila: Character, tomas: Character
    ) -> None:
        """A first evening in the crypt, through the same actions the GM uses, so the log tells it."""
        actions.apply_damage(campaign, [borin], Attack(amount=14), by=gm)
        actions.apply_damage(campaign, [aldara, borin, sibila], Gas(turns=3), by=gm)
        actions.apply_damage(campaign, [aldara], Fall(height_m=4, difficulty=14, dice={aldara.pk: 5}), by=gm)
        actions.advance_clock(campaign, 2 * HOUR, by=gm)
        actions.treat_wounds(campaign, borin, tomas, by=gm)
