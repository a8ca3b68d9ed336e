import segno
from django import template
from django.template.context import Context
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext as _

from campaigns.clock import format_clock
from play.jinja import duration, duration_in_full
from play.screens.cards import Card
from play.screens.drawing import draw_region
from rules.signs import signed

register = template.Library()


@register.filter
def clock(seconds: int) -> str:
    """Campaign time as people say it: «Día 13, 14:30»."""
    return format_clock(seconds)


register.filter("duration", duration)  # one definition for both engines (play.jinja)
register.filter("duration_in_full", duration_in_full)


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
def region(context: Context, name: str, card: Card | None = None, **given: object) -> SafeString:
    """One region of the screen being drawn (play.screens), in place: its element and everything inside it (drawn
    from `given` when the page has it at hand: the clock form's own rows of who rests, as the GM ticked them)."""
    return draw_region(context["drawing"], name, card, given or None)
