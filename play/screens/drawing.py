"""How a screen is drawn: who looks at which screen (`View`), one drawing of it at one moment (`Drawing`: what its
regions are drawn from, each worked out once), one region of it as the page has it (`Region`, `element`: the element,
marked with the campaign version it was drawn at, around what its template draws), and what a change sends a screen
(`changes`). Which regions each screen has is declared by play.screens.regions and registered here (`register`, by
play.apps): the drawing knows no region of its own."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property
from html import escape
from typing import Any

from django.http import HttpRequest
from django.template import engines
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from campaigns.access import Audience
from campaigns.models import Campaign, Invitation
from characters.models import Character
from play.screens.cards import Card, Shown, shown_to, whole
from play.screens.kept import CSRF_MARK, VERSION_MARK, kept, row_state
from play.screens.snapshot import EVERYTHING, Snapshot, Touch


class Screen(StrEnum):
    TABLE = "table"  # the GM's table
    PAGE = "page"  # a player's page: their characters and their companions
    SHEET = "sheet"  # one character's sheet, for its player or the GM


@dataclass(frozen=True)
class View:
    """Who looks at which screen: everything a screen's regions are drawn from, but the campaign's state."""

    audience: Audience
    screen: Screen
    character: int | None = None  # the sheet's


def view_of(audience: Audience, character: int | None = None) -> View:
    if character is not None:
        return View(audience, Screen.SHEET, character)
    return View(audience, Screen.TABLE if audience.is_gm else Screen.PAGE)


# --- drawing ---------------------------------------------------------------------------------------------------------


@dataclass
class Drawing:
    """One screen drawn at one moment: what its regions are drawn from, each worked out once, when first asked."""

    state: Snapshot  # the campaign's rows, shared by every drawing of the same change
    view: View
    site: str  # scheme and host, for the links people copy (invitations)
    request: HttpRequest | None = None  # a page or an answer (CSRF tokens for forms without script); None: a stream
    touch: Touch = EVERYTHING
    marked: bool = False  # drawn to be kept (play.screens.kept): marks where the CSRF token and the version go
    holes: bool = False  # a page's content drawn to be kept: a hole where each region goes (play.screens.pages)
    # Every region of the screen, kept whole (play.screens.regions.whole_screen), when this drawing is of all of it
    # (a page, a stream's first message: play.screens.regions.whole_drawing); else None.
    kept_whole: dict[str, SafeString] | None = None

    @property
    def campaign(self) -> Campaign:
        return self.state.campaign

    @property
    def audience(self) -> Audience:
        return self.view.audience

    @property
    def read_only(self) -> bool:
        return not self.audience.is_gm

    @cached_property
    def seen(self) -> list[Character]:
        return self.state.roster.seen_by(self.audience)

    @cached_property
    def cards(self) -> list[Card]:
        return self.state.cards_of(self.seen)

    @cached_property
    def cards_touched(self) -> list[Card]:
        return self.state.cards_of(character for character in self.seen if self.touch.character(character.pk))

    @cached_property
    def kept(self) -> frozenset[int]:
        return self.state.roster.kept_from(self.audience)

    @cached_property
    def sheet(self) -> Character | None:
        """The sheet's character, while this audience may still see it (removed or handed over: None)."""
        return next((character for character in self.seen if character.pk == self.view.character), None)

    def invitation(self, card: Card) -> Invitation | None:
        """A card's pending invitation link: on the GM's table only."""
        if not self.audience.is_gm or card.character.player_id is not None:
            return None  # a character someone plays has no invitation waiting: no query
        return self.state.invitations.get(card.character.pk)

    @cached_property
    def base(self) -> dict[str, Any]:
        """What every region's template reads: the drawing, and for a page or an answer what the context processors
        give (its CSRF token among them), worked out once for all its regions, not once per region. No CSRF token in
        a stream's drawing (no request): its forms go by htmx, which sends the page's token in a header."""
        processed: dict[str, Any] = {}
        if self.request is not None:
            for processor in engines["django"].engine.template_context_processors:  # type: ignore[attr-defined]
                processed.update(processor(self.request))
        drawn = {"campaign": self.campaign, "read_only": self.read_only, "site": self.site, "drawing": self}
        if self.marked:
            drawn["csrf_token"] = CSRF_MARK
        return {**processed, **drawn}

    def render(self, template: str, context: dict[str, Any]) -> SafeString:
        return fragment(template, {**self.base, **context})

    @cached_property
    def csrf_token(self) -> str | None:
        return None if self.request is None else str(self.base["csrf_token"])

    def render_card(
        self, template: str, card: Card, drawn_from: Callable[[Card], object] = whole, shown: Shown = shown_to
    ) -> SafeString:
        """Something of a card's (its shell, a region of it) drawn from the card and how this screen shows it alone (no
        request, no context processors), and kept under those (play.screens.kept): a page of 40 unchanged cards draws
        none of them again, and the answer to an action and the streams draw a changed card once for all. Its marks (the
        CSRF token, the version) are filled in by the region that holds it (`element`)."""
        invitation = self.invitation(card)
        context = {"card": card, "invitation": invitation, "read_only": self.read_only, "site": self.site}

        def draw() -> SafeString:
            marked = replace(self, marked=True)
            return fragment(template, {**context, "csrf_token": CSRF_MARK, "drawing": marked})

        key = (template, drawn_from(card), row_state(invitation), shown(card, self.read_only), self.site)
        return kept.get(key, draw)


# --- regions ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Region:
    """One element of a screen: `name` is its id (a card's and a sheet's end in the character's id), `how` how a
    change lands there ("inner": what is inside is replaced, forms being typed in kept; "keyed": children of the same
    id are kept, their own regions updated; "entries": log entries added or replaced by id, the oldest let go)."""

    name: str
    template: str
    draw: Callable[[Drawing], dict[str, Any]]
    touched: Callable[[Drawing], bool]
    tag: str = "div"
    attrs: dict[str, str] = field(default_factory=dict)
    how: str = "inner"
    per_card: bool = False  # one per card the screen shows ("card-12")
    drawn_from: Callable[[Card], object] = whole  # a per-card region's: what it shows of the card
    shown: Shown = shown_to  # and what of the screen's showing it (read-only or not) changes it
    kept: bool = False  # drawn from its context alone (hashable values, no request), and kept under it (kept.py)
    holds_cards: bool = False  # the list of cards: drawn, it holds every per-card region already


def element(
    drawing: Drawing, region: Region, context: dict[str, Any], name: str | None = None, card: Card | None = None
) -> SafeString:
    """A region as the page has it: its element, marked with the version it was drawn at, around its content."""
    if card is not None:
        inner = drawing.render_card(region.template, card, region.drawn_from, region.shown)
    elif region.kept:  # drawn from its context alone, which is its key
        key = (region.template, tuple(context.items()))
        inner = kept.get(key, lambda: fragment(region.template, context))
    else:
        inner = drawing.render(region.template, context)
    if not drawing.marked:  # what it holds of kept drawings (play.screens.kept) made whole
        inner = fill(inner, drawing.csrf_token, drawing.campaign.version)
    version = VERSION_MARK if drawing.marked else str(drawing.campaign.version)
    attrs = {"id": name or region.name, **region.attrs, "data-how": region.how, "data-v": version}
    # Written out, not by format_html: ten of these a change, eighty a page of forty cards, at a tenth of the cost.
    # The names are the code's own; every value is escaped, and `inner` is a drawing (safe) as it stands.
    attributes = " ".join(f'{key}="{escape(str(value))}"' for key, value in attrs.items())
    return mark_safe(f"<{region.tag} {attributes}>{inner}</{region.tag}>")  # noqa: S308


def part(element_id: str, html: str = "", how: str = "inner") -> str:
    """Something for the acting tab only, put in place like a region: what is inside the element `element_id`."""
    return format_html('<div id="{}" data-how="{}">{}</div>', element_id, how, html)


# --- what a change sends a screen -------------------------------------------------------------------------------------

# Each screen's regions, in the page's order, and each region by its name: play.screens.regions.SCREENS, registered.
SCREENS: dict[Screen, list[Region]] = {}
REGIONS: dict[str, Region] = {}


def register(screens: dict[Screen, list[Region]]) -> None:
    SCREENS.update(screens)
    REGIONS.update((region.name, region) for regions in screens.values() for region in regions)


def changes(drawing: Drawing) -> SafeString:
    """What a change sends one screen: each region it touched, once, as the page has it (the whole screen when the
    change is unknown: a stream's first message)."""
    if drawing.kept_whole is not None:
        version = drawing.campaign.version
        return mark_safe("".join(fill(html, drawing.csrf_token, version) for html in drawing.kept_whole.values()))  # noqa: S308
    parts = []
    cards_drawn = False
    for region in SCREENS[drawing.view.screen]:
        if region.per_card:
            if not cards_drawn:
                parts += [draw_region(drawing, region.name, card) for card in drawing.cards_touched]
        elif drawing.touch.everything or region.touched(drawing):
            parts.append(element(drawing, region, region.draw(drawing)))
            cards_drawn = cards_drawn or region.holds_cards
    return mark_safe("".join(parts))  # noqa: S308 — each drawn by its template


HOLES = re.compile("\x00r:([^\x00]+)\x00")  # each `hole` in a page's content, and the region that goes there


def hole(name: str) -> SafeString:
    """Where a region goes in a page's content kept without it (play.screens.pages)."""
    return mark_safe(f"\x00r:{name}\x00")  # noqa: S308 — a name of REGIONS


def draw_region(
    drawing: Drawing, name: str, card: Card | None = None, given: dict[str, Any] | None = None
) -> SafeString:
    """One region of the screen as the page draws it in place (`{% region %}`): all of it."""
    region = REGIONS[name]
    if region.per_card:
        assert card is not None
        return element(drawing, region, {}, f"{name}-{card.character.pk}", card)
    if given is None and drawing.holes:
        return hole(name)
    if given is None and drawing.kept_whole is not None:
        return fill(drawing.kept_whole[name], drawing.csrf_token, drawing.campaign.version)
    return element(drawing, region, region.draw(drawing) if given is None else given)


# What {% csrf_token %} draws with the mark for a token.
CSRF_INPUT = f'<input type="hidden" name="csrfmiddlewaretoken" value="{CSRF_MARK}">'


def fill(html: SafeString, csrf_token: str | None, version: int) -> SafeString:
    """A kept drawing (play.screens.kept) made whole for one drawing: its marks replaced by the page's CSRF token and
    the campaign version it is drawn at. A stream has no token: its forms go by htmx, which sends the page's in a
    header; what a template draws without one is nothing, and so is what is left of its marks here."""
    if "\x00" not in html:
        return html
    filled = html.replace(CSRF_INPUT, "") if csrf_token is None else str(html)
    filled = filled.replace(CSRF_MARK, escape(csrf_token or "")).replace(VERSION_MARK, str(version))
    return mark_safe(filled)  # noqa: S308 — a template's own output


def fragment(name: str, context: dict[str, Any]) -> SafeString:
    """A fragment drawn from its context alone (no request: no context processors), in its own language: Jinja2's
    for a name of play/jinja2/ (".jinja": play.jinja says which and why), Django's for the rest."""
    if name.endswith(".jinja"):
        return mark_safe(engines["jinja2"].get_template(name).render(context))  # noqa: S308 — a template's own output
    return mark_safe(render_to_string(name, context))  # noqa: S308 — a template's own output
