"""What the GM's table page shows; used by the page itself and by every action that answers with it."""

from campaigns.log import entry_for
from campaigns.models import Campaign
from characters.cards import cards_for
from rules import forms

LOG_LENGTH = 40


def log_entries(campaign: Campaign, names: dict[int, str] | None = None) -> list:
    if names is None:
        names = dict(campaign.characters.values_list("pk", "name"))
    events = campaign.events.order_by("-id")[:LOG_LENGTH]
    return [entry_for(event, names) for event in events]


def table_context(campaign: Campaign) -> dict:
    """Everything the GM's table shows, in a constant number of queries."""
    cards = cards_for(campaign)
    names = {card.character.pk: card.character.name for card in cards}
    return {
        "campaign": campaign,
        "cards": cards,
        "log": log_entries(campaign, names),
        "presets": forms.PRESETS,
        "can_undo": campaign.events.filter(undone=False).exclude(action="undo").exists(),
    }
