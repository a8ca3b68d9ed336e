"""What a page, an answer or a stream's message holds, region by region (play.screens): its SSE events, its elements
and its regions by id, read with the standard library's HTML parser."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser


def sse_events(text: str) -> list[tuple[str, str]]:
    """The Server-Sent Events of a stream's text, as (event, data) in order: each data's lines joined again."""
    found = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        if lines and lines[0].startswith("event: "):
            data = "\n".join(line.removeprefix("data: ") for line in lines[1:] if line.startswith("data: "))
            found.append((lines[0].removeprefix("event: "), data))
    return found


def message_html(text: str) -> str:
    """The HTML of one stream's message (`event: change`), or the text itself when it is not SSE (an answer)."""
    events = sse_events(text)
    if not events:
        return text
    [(event, data)] = events
    assert event == "change", events
    return data


VOID_ELEMENTS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass(frozen=True)
class Element:
    """An element with an id, as found in some HTML: its tag, attributes, how deep it sits and its whole text."""

    id: str
    tag: str
    attrs: dict[str, str]
    depth: int
    html: str

    @property
    def inner(self) -> str:
        return self.html[self.html.index(">") + 1 : self.html.rindex("<")]


class _Elements(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.html = html
        self.line_starts = [0]
        for line in html.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.open: list[tuple[str, dict[str, str], int]] = []
        self.found: list[Element] = []

    def position(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID_ELEMENTS:
            self.handle_startendtag(tag, attrs)
            return
        self.open.append((tag, {name: value or "" for name, value in attrs}, self.position()))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            start = self.position()
            text = self.get_starttag_text() or ""
            self.found.append(Element(values["id"], tag, values, len(self.open), self.html[start : start + len(text)]))

    def handle_endtag(self, tag: str) -> None:
        if not any(open_tag == tag for open_tag, _attrs, _start in self.open):
            return  # a stray end tag
        end = self.html.index(">", self.position()) + 1
        while self.open:
            open_tag, attrs, start = self.open.pop()
            if "id" in attrs:
                self.found.append(Element(attrs["id"], open_tag, attrs, len(self.open), self.html[start:end]))
            if open_tag == tag:
                return


def elements_of(html: str) -> list[Element]:
    """Every element with an id in this HTML, in the order their ends come."""
    parser = _Elements(html)
    parser.feed(html)
    parser.close()
    return parser.found


def regions_in(text: str) -> list[Element]:
    """The run of elements an answer to an action or a stream's message is made of (play.screens.changes, and the
    parts for the acting tab only), in order: each is put in place by the element of its id on the page."""
    html = message_html(text)
    parts = sorted((e for e in elements_of(html) if e.depth == 0), key=lambda e: html.index(e.html))
    rest = html
    for part in parts:
        rest = rest.replace(part.html, "", 1)
    assert not rest.strip(), f"not an element with an id in the run: {rest.strip()[:200]!r}"
    return parts


def region_ids(text: str) -> list[str]:
    """The ids of the run's elements, in order (a region twice is named twice)."""
    return [part.id for part in regions_in(text)]


def element_by_id(html: str, element_id: str) -> Element:
    """The one element of this id in a page, an answer or a message."""
    found = [element for element in elements_of(message_html(html)) if element.id == element_id]
    assert len(found) == 1, f"{len(found)} elements with id {element_id!r}"
    return found[0]
