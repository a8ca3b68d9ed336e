from django import template

from campaigns.clock import format_clock, format_duration
from play.cards import signed

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
