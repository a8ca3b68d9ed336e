"""Fragments of a page drawn from a small context of their own (no request, no context processors) and kept, so that
the same fragment is not drawn twice: a character's card, who rests. Each is kept under what it is drawn from, which
must determine its whole context; with the template, the language and the URL prefix that key then determines the
fragment, so a kept one is never stale: a change of anything it shows is a new key."""

from collections.abc import Hashable

from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from play.recent import Recent

_drawn: Recent[tuple[object, ...], SafeString] = Recent(2048)


def drawn(template_name: str, context: dict[str, object], drawn_from: Hashable) -> SafeString:
    """The template drawn from `context` alone, kept under `drawn_from` (everything the context holds)."""
    key = (template_name, drawn_from, get_language(), get_script_prefix())
    html = _drawn.get(key)
    if html is None:
        html = render_to_string(template_name, context)
        _drawn.put(key, html)
    return html
