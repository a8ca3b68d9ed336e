"""Reading a campaign document: the file's limits, one typed decoding, and every refusal said in the GM's words with
where it is ("La copia no es válida: $.events[3].details.pg[...]: debe ser un número entero entre 0 y …")."""

from __future__ import annotations

import enum
import functools
import json
import re
import types
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Annotated, Any, Literal, TypeAliasType, Union, get_args, get_origin, get_type_hints

import msgspec
from django.utils.translation import gettext as _

from rules import events
from rules.actions.core import ActionError
from rules.backup.schema import FORMAT, PLAYER, TRIMMED, USERNAME, VERSION, Document, Head

DOCUMENT_BYTES = 5 * 1024 * 1024  # the largest file taken: a campaign with years of play is well under 1 MB

BOM = b"\xef\xbb\xbf"
# A NUL in a JSON text can only be written as the escape \u0000 (one not itself escaped): PostgreSQL refuses it.
NUL = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
# One step of a path as msgspec writes it: `.name`, `[3]`, or `[...]` for a value of a JSON object.
STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]|\[(\.\.\.)\]")


def invalid_copy(path: str, problem: str) -> ActionError:
    return ActionError(_("La copia no es válida: %(path)s: %(problem)s") % {"path": path, "problem": problem}, "file")


def not_a_document() -> ActionError:
    return ActionError(_("Este archivo no es una copia de una campaña de 12Plus."), "file")


def read_document(data: bytes) -> Document:
    """The document in an uploaded file: at most DOCUMENT_BYTES of UTF-8 JSON, one object of this format and version,
    every part of it the shape and within the bounds that rules.backup.schema gives."""
    if len(data) > DOCUMENT_BYTES:
        message = _("El archivo pasa de %(mb)s MB: no es una copia de una campaña de este sitio.")
        raise ActionError(message % {"mb": DOCUMENT_BYTES // (1024 * 1024)}, "file")
    data = data.removeprefix(BOM)
    try:
        head = msgspec.json.decode(data, type=Head)
    except msgspec.ValidationError as error:
        raise not_a_document() from error  # not an object at all
    except (msgspec.DecodeError, RecursionError) as error:
        raise _malformed(error) from error
    if head.format != FORMAT:
        raise not_a_document()
    if head.version != VERSION:
        message = _("Esta copia es de la versión %(version)s del formato; este sitio lee la versión %(supported)s.")
        raise ActionError(message % {"version": str(head.version)[:20], "supported": VERSION}, "file")
    try:
        document = msgspec.json.decode(data, type=Document)
    except msgspec.ValidationError as error:
        raise invalid_by_schema(error, Document) from error
    except (msgspec.DecodeError, RecursionError) as error:
        raise _malformed(error) from error
    if NUL.search(data):
        raise invalid_copy(
            _first(msgspec.json.decode(data), lambda text: "\x00" in text), _("contiene un carácter nulo.")
        )
    return document


def as_document(document: Document | dict[str, Any]) -> Document:
    """A document given as JSON values (json.loads of a file) read exactly as its file would be."""
    if isinstance(document, Document):
        return document
    if not isinstance(document, dict):
        raise not_a_document()
    try:
        data = json.dumps(document, ensure_ascii=False, allow_nan=False).encode()
    except UnicodeEncodeError as error:
        raise invalid_copy(_first(document, _unencodable), _("contiene caracteres no válidos.")) from error
    except (TypeError, ValueError, RecursionError) as error:  # NaN, Infinity, what JSON has not: never in a file
        raise ActionError(_("El archivo no es JSON válido: no es una copia de una campaña."), "file") from error
    return read_document(data)


def _malformed(error: Exception) -> ActionError:
    """What the JSON parser refuses (a lone surrogate, NaN, nesting deeper than it goes…), as the GM reads it."""
    if "UTF-8" in str(error):
        return ActionError(_("El archivo no es texto UTF-8: no es una copia de una campaña."), "file")
    return ActionError(_("El archivo no es JSON válido: no es una copia de una campaña."), "file")


def _unencodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return True
    return False


def _first(value: Any, wrong: Callable[[str], bool], path: str = "$") -> str:
    """The path of the first text (a member's name included) for which `wrong` is true."""
    for where, text in _texts(value, path):
        if wrong(text):
            return where
    return path


def _texts(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _texts(item, f"{path}[{index}]")
    elif isinstance(value, dict):
        for name, item in value.items():
            yield path, str(name)
            yield from _texts(item, f"{path}.{name}")


# --- msgspec's refusals in the GM's words -----------------------------------------------------------------------------


def invalid_by_schema(error: msgspec.ValidationError, root: Any, path: str = "$") -> ActionError:
    """A refusal of msgspec (decoding `root`, found at `path` of the document) said where it is and what was expected
    there."""
    problem, at, where = str(error).rpartition(" - at `")
    if not at:
        problem, where = str(error), "$"
    where = where.rstrip("`")
    is_key = where.startswith("key` in `")  # a JSON object's member name, not its value
    where = where.removeprefix("key` in `")
    return invalid_copy(path + where.removeprefix("$"), _problem(problem, expected(root, where), is_key))


def _problem(problem: str, hint: Any, is_key: bool) -> str:
    """What was wrong, said by what was expected there (`hint`, a type of rules.backup.schema or rules.events)."""
    problem = problem[:200]
    if found := re.match(r"Object missing required field `(.*)`$", problem):
        return _("no tiene «%(name)s».") % {"name": found[1]}
    if found := re.match(r"Object contains unknown field `(.*)`$", problem):
        return _("tiene «%(name)s», que no es parte del formato.") % {"name": found[1][:40]}
    if hint is None:
        return _("no es válido (%(problem)s).") % {"problem": problem}
    bare, metas = _unwrapped(hint)
    if is_key:
        bare, metas = _unwrapped(get_args(bare)[0]) if get_origin(bare) is dict else (None, [])
        choices = _choices(bare)
        if choices is not None:
            return _("sus claves deben ser de: %(choices)s.") % {"choices": choices}
        return _("tiene una clave que no es de la copia.")
    bound = {name: getattr(meta, name) for meta in metas for name in ("ge", "le", "max_length", "pattern")}
    bound = {name: value for name, value in bound.items() if value is not None}
    choices = _choices(bare)
    if choices is not None:
        return _("debe ser uno de: %(choices)s.") % {"choices": choices}
    if bare is bool:
        return _("debe ser true o false.")
    if bare is int:
        if "ge" in bound and "le" in bound:
            return _("debe ser un número entero entre %(low)s y %(high)s.") % {"low": bound["ge"], "high": bound["le"]}
        return _("debe ser un número entero.")
    if bare is str:
        if bound.get("pattern") == TRIMMED:
            return _("debe ser un nombre de 1 a %(max)s caracteres.") % {"max": bound["max_length"]}
        if bound.get("pattern") in (USERNAME, PLAYER):
            return _("debe ser un nombre de usuario de hasta %(max)s caracteres.") % {"max": bound["max_length"]}
        if "pattern" in bound:
            return _("no es una clave de la copia.")
        return _("debe ser un texto de hasta %(max)s caracteres.") % {"max": bound.get("max_length", "…")}
    if bare is datetime:
        if "timezone" in problem:
            return _("debe llevar su zona horaria.")
        return _("debe ser una fecha y hora ISO 8601.")
    if get_origin(bare) is list:
        return _("debe ser una lista.")
    if get_origin(bare) is tuple:
        return _("debe ser una lista de %(n)s elementos.") % {"n": len(get_args(bare))}
    if get_origin(bare) is dict or (isinstance(bare, type) and issubclass(bare, msgspec.Struct)):
        return _("debe ser un objeto JSON.")
    return _("no es válido (%(problem)s).") % {"problem": problem}


def _choices(bare: Any) -> str | None:
    if isinstance(bare, type) and issubclass(bare, enum.Enum):
        values = [member.value for member in bare]
    elif get_origin(bare) is Literal:
        values = list(get_args(bare))
    else:
        return None
    return ", ".join(str(value) or '""' for value in values)


def expected(root: Any, path: str) -> Any:
    """The type that `root` gives the part at `path` (a msgspec path: "$.events[3].before[...]"), None if unknown."""
    hint = root
    for name, index, _value in STEP.findall(path):
        bare, _metas = _unwrapped(hint)
        origin, args = get_origin(bare), get_args(bare)
        if isinstance(bare, type) and issubclass(bare, msgspec.Struct) and name:
            hint = _hints(bare).get(name)
        elif origin is list and index:
            hint = args[0]
        elif origin is tuple and index and int(index) < len(args):
            hint = args[int(index)]
        elif origin is dict:
            hint = args[1]
        else:
            return None
        if hint is None:
            return None
    return hint


@functools.cache
def _hints(struct: type[msgspec.Struct]) -> dict[str, Any]:
    return get_type_hints(struct, include_extras=True)


def _unwrapped(hint: Any) -> tuple[Any, list[msgspec.Meta]]:
    """A type without its aliases, its annotations (their Meta bounds kept) and the null or unset it may also be."""
    metas: list[msgspec.Meta] = []
    while True:
        if isinstance(hint, TypeAliasType):
            hint = hint.__value__
        elif get_origin(hint) is Annotated:
            metas += [meta for meta in hint.__metadata__ if isinstance(meta, msgspec.Meta)]
            hint = hint.__origin__
        elif get_origin(hint) in (Union, types.UnionType):
            members = [arg for arg in get_args(hint) if arg not in (type(None), msgspec.UnsetType)]
            if len(members) != 1:
                return hint, metas
            hint = members[0]
        else:
            return hint, metas


def invalid_payload(path: str, damaged: events.DamagedEntry, payload: type[events.Payload]) -> ActionError:
    """A log entry's details that are not their kind's payload (rules.events.decode), said where (`path`: the
    details' own path in the document)."""
    where = damaged.where
    is_key = where.startswith("key` in `")
    where = where.removeprefix("key` in `").removeprefix("details")
    return invalid_copy(path + where, _problem(damaged.problem, expected(payload, "$" + where), is_key))
