"""The log on the screens: a page of entries drawn, each kept (play.screens.kept) under all it is worded from; the
undo button's title; and the log's regions of the GM's table and of a sheet (play.screens.regions)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from play.log.pages import LOG_LENGTH, SHEET_LOG_LENGTH, next_page
from play.log.story import Entry, entry_for
from play.screens.drawing import Drawing, fragment
from play.screens.kept import VERSION_MARK, kept, titles
from play.screens.snapshot import Snapshot


def log_page(entries: list[Entry], length: int, url: str) -> dict[str, Any]:
    """An older page of a log, drawn, and when it was full the address of the one before it ("Sucesos
    anteriores")."""
    older = next_page(entries, length)
    return {
        "log": [entry_html(entry) for entry in entries],
        "log_more": None if older is None else f"{url}{'&' if '?' in url else '?'}before={older}",
    }


def drawn_page(page: dict[str, Any], whole: bool = False) -> SafeString:
    """An older page of a log (`log_page`) drawn: its entries and its "Sucesos anteriores"; `whole` when it is all
    of a log, which then says that nothing happened yet."""
    return fragment("log.jinja", {**page, "older": True, "whole": whole})


def entry_html(entry: Entry, version: str | None = None) -> SafeString:
    """One entry as a log shows it; in a screen's region marked with the version it was drawn at."""
    return fragment("log_entry.jinja", {"entry": entry, "version": version})


def kept_entries(
    state: Snapshot, ids: list[int], names: dict[int, str], only: int | None, unseen: frozenset[int]
) -> list[SafeString]:
    """These events in words and drawn (those about `only`, when given), newest first, each kept (play.screens.kept)
    under all it is worded from: the event (only whether it was undone ever changes), who acted, the names it may use,
    whose lines it keeps and whom it may not name. Only the events not kept are read whole (one query)."""
    named = frozenset(names.items())
    heads = state.heads_of(ids)
    keys = {pk: ("entry", pk, head.undone, head.who, named, only, unseen) for pk, head in heads.items()}
    keys = {pk: key for pk, key in keys.items() if only is None or only in heads[pk].characters}
    state.entries([pk for pk, key in keys.items() if not kept.has(key)])

    def drawn(pk: int) -> SafeString:
        # Who acted as the key says: the entry read whole later never names someone the key does not.
        def draw() -> SafeString:
            entry = replace(entry_for(state.entries([pk])[0], names, only, unseen), who=heads[pk].who)
            return entry_html(entry, VERSION_MARK)

        return kept.get(keys[pk], draw)

    return [drawn(pk) for pk in keys]


@dataclass(frozen=True)
class UndoTitle:
    pk: int
    title: str


def undo_title(state: Snapshot, pk: int, names: dict[int, str]) -> UndoTitle:
    """What the undo button names: the event's title in the log's words, kept (play.screens.kept) under the event and
    the names it may use (the event is read whole only to word it the first time)."""
    title = titles.get(("undo", pk, frozenset(names.items())), lambda: entry_for(state.entries([pk])[0], names).title)
    return UndoTitle(pk, title)


def log(drawing: Drawing) -> dict[str, Any]:
    """The GM's log: its latest page on a load; the entries a change added or changed, and the page's end."""
    url = reverse("campaign_log", args=[drawing.campaign.pk])
    # Entries name characters as they are called now: a rename words every entry again.
    full = drawing.touch.roster or drawing.touch.campaign
    page = drawing.state.log_page
    return entries_context(drawing, page, LOG_LENGTH, url, "log-more", drawing.state.names, full=full)


def sheet_log_entries(drawing: Drawing) -> dict[str, Any]:
    """A sheet's log: only the events about its character, only their lines about it, a hidden healer unnamed."""
    character = drawing.sheet
    if character is None:
        return {"log": [], "log_more": None, "more_id": "sheet-log-more", "whole": True}
    about = drawing.campaign.events.filter(characters__contains=[character.pk]).order_by("-id")
    page = drawing.state.read_heads(about[:SHEET_LOG_LENGTH])
    url = reverse("character_log", args=[drawing.campaign.pk, character.pk])
    names = {character.pk: character.name}
    # Who may be named can change with the roster (a healer hidden): then every entry is worded again.
    full = drawing.touch.roster or drawing.touch.campaign
    context = entries_context(drawing, page, SHEET_LOG_LENGTH, url, "sheet-log-more", names, character.pk, full)
    return {**context, "empty": _("Nada todavía.")}


def entries_context(
    drawing: Drawing,
    page: list[int],
    length: int,
    url: str,
    more_id: str,
    names: dict[int, str],
    only: int | None = None,
    full: bool = False,
) -> dict[str, Any]:
    """A log's latest page (the ids of its `length` newest entries) and where the page before it starts ("Sucesos
    anteriores"): on a load every entry of it; for a change only the entries it added or changed (screen.js puts them
    in order)."""
    chosen = page if full or drawing.touch.everything else list(drawing.touch.entries)
    entries = kept_entries(drawing.state, chosen, names, only, drawing.kept)
    older = page[-1] if len(page) == length else None
    log_more = None if older is None else f"{url}?before={older}"
    return {"log": entries, "log_more": log_more, "more_id": more_id, "whole": chosen is page}
