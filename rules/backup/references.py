"""Every reference a log entry's payload carries (rules.events.Refers), found and mapped in one walk of its types: a
row id into a document's key on export, a key into a new row's id on restore. The backup never lists them by hand."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Annotated, Any, TypeAliasType, Union, get_args, get_origin, get_type_hints

import msgspec

from rules import events

type Mapper = Callable[[str, Any], Any]


def mapped[R: events.Record](record: R, m: Mapper) -> R:
    """The same record with each reference `m(what, value)`: ids into a document's keys, or keys into new ids."""
    hints = _hints(type(record))
    new = {name: _mapped_value(getattr(record, name), hints[name], m) for name in record.__struct_fields__}
    if isinstance(record, events.Undo):
        undone = mapped(record.undone_payload(), m)
        new["undone"] = msgspec.structs.replace(new["undone"], details=events.stored(undone))
    return msgspec.structs.replace(record, **new)


@functools.cache
def _hints(record: type[events.Record]) -> dict[str, Any]:
    """A record's fields' types, read once: reading them is most of the time a large log takes to map."""
    return get_type_hints(record, include_extras=True)


def _mapped_value(value: Any, hint: Any, m: Mapper) -> Any:
    hint, what = _unwrapped(hint)
    if value is None:
        return None
    if what is not None:
        return m(what, value)
    if isinstance(value, events.Record):
        return mapped(value, m)
    origin, args = get_origin(hint), get_args(hint)
    if origin is list:
        return [_mapped_value(item, args[0], m) for item in value]
    if origin is tuple:
        return tuple(_mapped_value(item, arg, m) for item, arg in zip(value, args, strict=True))
    if origin is dict:
        _key, key_what = _unwrapped(args[0])
        return {
            (key if key_what is None else str(m(key_what, key))): _mapped_value(item, args[1], m)
            for key, item in value.items()
        }
    if origin in (Union, types.UnionType):
        members = [arg for arg in args if arg is not type(None)]
        if len(members) == 1:
            return _mapped_value(value, members[0], m)
    return value


def _unwrapped(hint: Any) -> tuple[Any, str | None]:
    """A type hint without its aliases and annotations, and what it refers to, if it is a reference."""
    what = None
    while True:
        if isinstance(hint, TypeAliasType):
            hint = hint.__value__
        elif get_origin(hint) is Annotated:
            what = next((meta.what for meta in hint.__metadata__ if isinstance(meta, events.Refers)), what)
            hint = hint.__origin__
        else:
            return hint, what


def references(record: events.Record) -> list[tuple[str, Any]]:
    """Every reference a record carries, as (what, value)."""
    found: list[tuple[str, Any]] = []

    def seen(what: str, value: Any) -> Any:
        found.append((what, value))
        return value

    mapped(record, seen)
    return found
