"""What the GM's table page shows; used by the page itself and by every action that answers with it."""

from campaigns.log import entry_for
from campaigns.models import Campaign
from characters.cards import cards_for
from rules import forms

LOG_LENGTH = 40


def table_context(campaign: Campaign) -> dict:
    """Everything the GM's table shows, in a constant number of queries."""
    cards = cards_for(campaign)
    names = {card.character.pk: card.character.name for card in cards}
    events = campaign.events.select_related("actor").order_by("-id")[:LOG_LENGTH]
    return {
        "campaign": campaign,
        "cards": cards,
        "log": [entry_for(event, names) for event in events],
        "presets": forms.PRESETS,
        "can_undo": campaign.events.filter(undone=False).exclude(action="undo").exists(),
    }
