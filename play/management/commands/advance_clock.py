"""Advance a campaign's clock from a script: `manage.py advance_clock "La Cripta de Hielo" 1w2d [--no-rest]`."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns.clock import format_clock, format_duration, parse_duration
from campaigns.models import Campaign
from play.forms.fields import digits
from rules import actions


class Command(BaseCommand):
    help = "Moves a campaign's clock forward through the same action the GM uses; everyone rests unless --no-rest."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign id or exact name")
        parser.add_argument("duration", help='e.g. 90 (seconds), 3t (turns), 8h, 1d12h, "1 semana"')
        parser.add_argument("--no-rest", action="store_true", help="nobody rests during this time")

    def handle(self, campaign: str, duration: str, no_rest: bool, **options: object) -> None:
        pk = digits(campaign)
        found = Campaign.objects.filter(pk=pk) if pk is not None else Campaign.objects.none()
        found = found or Campaign.objects.filter(name=campaign)
        if len(found) != 1:
            raise CommandError(f"No single campaign matches {campaign!r}.")
        [target] = found
        try:
            seconds = parse_duration(duration)
            outcome = actions.advance_clock(target, seconds, by=target.gm, resting=[] if no_rest else None)
        except (ValueError, actions.ActionError) as error:
            raise CommandError(str(error)) from error
        target.refresh_from_db()
        self.stdout.write(
            f"{target.name}: +{format_duration(seconds)} → {format_clock(target.clock)}; "
            f"{len(outcome.characters)} character(s) changed (event #{outcome.event.pk if outcome.event else '-'})."
        )
        for character in outcome.characters:
            self.stdout.write(f"  {character.name}: {character.pg}/{character.max_pg} PG")
