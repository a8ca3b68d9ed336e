"""A bounded map of what this process worked out most recently (worded log entries, drawn fragments), kept so that
the same thing is not worked out again. Renders run on several threads (views, live streams): hence the lock."""

import threading
import weakref
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any


class Recent[K: Hashable, V]:
    """The `size` entries used most recently; the one used least recently goes first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        _every.add(self)

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is not None:
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


_every: weakref.WeakSet[Recent[Any, Any]] = weakref.WeakSet()


def forget_everything() -> None:
    """Forget all that was kept: what it was worked out by (a template, a translation) has changed."""
    for recent in list(_every):
        recent.clear()
