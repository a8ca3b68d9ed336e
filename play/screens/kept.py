"""Drawings kept by what they are drawn from, so that a page does not draw the same card twice (issue 22).

A card's regions depend only on the card's rows, the campaign clock and how the screen shows it; kept under all of
that (with the language and the URL prefix), a kept drawing is never stale: a change of anything it shows is a new key,
and the old one ages out. What differs from drawing to drawing although the rows do not — the CSRF token of a form that
works without script, the campaign version every region is marked with — is drawn as a mark and put in when the
drawing is made (`fill`)."""

from __future__ import annotations

import functools
import json
import operator
import threading
from collections.abc import Callable, Hashable
from contextlib import suppress

from cachetools import LRUCache
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.urls import get_script_prefix
from django.utils.safestring import SafeString
from django.utils.translation import get_language

# Drawn where a form's CSRF token and a region's version go: no text typed by a user can hold a NUL (every field
# refuses it).
CSRF_MARK = "\x00csrf\x00"
VERSION_MARK = "\x00v\x00"
SIZE = 4096  # drawings kept per process: two regions of 2,000 cards


class Kept[V]:
    """The most recently used drawings, shared by the threads of one process: as many as weigh `size` at most (each
    weighs 1 unless `weigh` says otherwise; one that weighs more than `size` alone is not kept). Each is kept under
    its key, the language it is drawn in and the URL prefix its links start with."""

    def __init__(self, size: int, weigh: Callable[[V], int] | None = None) -> None:
        self.drawings: LRUCache[Hashable, V] = LRUCache(size, getsizeof=weigh)
        self.lock = threading.Lock()  # cachetools' caches are not safe between threads

    @property
    def weight(self) -> int:
        return int(self.drawings.currsize)

    def has(self, key: Hashable) -> bool:
        with self.lock:
            return (key, get_language(), get_script_prefix()) in self.drawings

    def get(self, key: Hashable, draw: Callable[[], V]) -> V:
        found = self.peek(key)
        if found is not None:
            return found
        return self.put(key, draw())  # drawn outside the lock: two threads may draw the same thing once each

    def peek(self, key: Hashable) -> V | None:
        with self.lock:
            return self.drawings.get((key, get_language(), get_script_prefix()))  # now the most recently used

    def put(self, key: Hashable, html: V) -> V:
        with self.lock, suppress(ValueError):  # ValueError: heavier than the whole cache
            self.drawings[(key, get_language(), get_script_prefix())] = html
        return html

    def clear(self) -> None:
        with self.lock:
            self.drawings.clear()


kept: Kept[SafeString] = Kept(SIZE)
titles: Kept[str] = Kept(SIZE // 4)  # what undo buttons name, in plain words (their template escapes them)
# Whole screens, each as its regions by name (play.screens.whole_screen), weighed by their characters: some 120 GM
# tables of 40 characters, or 3 of 2,000.
SCREEN_CHARACTERS = 16_000_000
screens: Kept[dict[str, SafeString]] = Kept(SCREEN_CHARACTERS, lambda regions: sum(map(len, regions.values())))
# Pages' content around their regions (play.screens.pages), and the pages around that content (its `framed`).
contents: Kept[SafeString] = Kept(SCREEN_CHARACTERS // 8, len)
frames: Kept[SafeString] = Kept(SCREEN_CHARACTERS // 16, len)


def row_state(row: models.Model | None) -> tuple[object, ...]:
    """Every stored field of a row, as a key: two rows of equal fields draw alike."""
    if row is None:
        return ()
    fields, unhashable = _reader(type(row))
    values = fields(row)
    if not unhashable:
        return values
    return tuple(_hashable(value) if i in unhashable else value for i, value in enumerate(values))


def values_state(values: tuple[object, ...]) -> tuple[object, ...]:
    """A row read as values (`values_list`), as a key."""
    if not any(isinstance(value, UNHASHABLE) for value in values):
        return values
    return tuple(_hashable(value) for value in values)


UNHASHABLE = (dict, list)


@functools.cache
def _reader(model: type[models.Model]) -> tuple[Callable[[models.Model], tuple[object, ...]], frozenset[int]]:
    """A model's stored fields read at once (in C: attrgetter), and which of them hold JSON or arrays (dicts, lists:
    made hashable). A model has an id and at least one more field, so the getter always gives a tuple."""
    fields = model._meta.concrete_fields
    unhashable = frozenset(i for i, field in enumerate(fields) if isinstance(field, models.JSONField | ArrayField))
    return operator.attrgetter(*(field.attname for field in fields)), unhashable


def _hashable(value: object) -> object:
    if isinstance(value, UNHASHABLE):
        return json.dumps(value, sort_keys=True)
    return value
