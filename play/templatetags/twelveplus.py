import segno
from django import template
from django.template.context import Context
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from campaigns.clock import format_clock, format_duration
from play.cards import Card, Showing, card_html, signed

register = template.Library()


@register.filter
def clock(seconds: int) -> str:
    """Campaign time as people say it: «Día 13, 14:30»."""
    return format_clock(seconds)


@register.filter
def duration(seconds: int | None) -> str:
    return "" if seconds is None else format_duration(seconds)


@register.filter(name="signed")
def signed_number(number: int) -> str:
    return signed(number)


@register.filter
def qr(link: str) -> str:
    """A QR code of the link, as inline SVG drawn on the server (no script, no image request), for a phone to scan."""
    code = segno.make(link, error="m")
    svg = code.svg_inline(scale=3, border=2, title=str(_("Código QR del enlace de invitación")))
    return mark_safe(svg)  # noqa: S308 — segno's own markup, built from a URL it encodes, not from the page


@register.simple_tag(takes_context=True)
def draw_cards(context: Context, cards: list[Card], oob: bool = False) -> SafeString:
    """Characters' cards as this screen shows them: the GM's table or a player's page (`read_only`), in the answer to
    an action (`oob`), after a form closed (`closed_slot`). Each is drawn by play.cards.card_html, once per state."""
    token = context.get("csrf_token")
    closed_slot = context.get("closed_slot")
    showing = Showing(
        read_only=bool(context.get("read_only")),
        site=str(context.get("site", "")),
        oob=oob,
        closed_slot=None if closed_slot is None else str(closed_slot),
        csrf_token=str(token) if token and str(token) != "NOTPROVIDED" else None,
    )
    return mark_safe("".join(card_html(card, showing) for card in cards))  # noqa: S308 — drawn by templates
