"""A document's game sessions (rules.backup.schema.SessionEntry): what its log says they are — each session started by
an entry that stands, ended by one, its recap shared by the latest that shared it — checked as the actions would have
allowed them (one open at a time, numbered in order), and the document's own list, when it has one, equal to that."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _

from rules import events
from rules.backup.limits import at_most
from rules.backup.read import invalid_copy
from rules.backup.schema import Document, SessionEntry


def sessions_of(document: Document, payloads: list[events.Payload]) -> list[SessionEntry]:
    """The sessions the document's log makes, as start_session, end_session and share_recap would have; a log they
    could not have written, or a list that is not the log's, is refused where it is wrong."""
    found: dict[int, SessionEntry] = {}
    playing = False  # a session is open (one at a time): kept as the log goes, not looked for
    for index, (entry, payload) in enumerate(zip(document.events, payloads, strict=True)):
        if entry.undone or not payload.sessions:
            continue
        where = f"$.events[{index}].details.number"
        number = getattr(payload, "number", 0)
        session = found.get(number)
        if isinstance(payload, events.SessionStarted):
            if playing or number != len(found) + 1:
                raise invalid_copy(where, _("empieza una sesión con otra abierta, o fuera de orden."))
            at_most(where, number, settings.SESSIONS_PER_CAMPAIGN)  # as start_session refuses the next one
            found[number] = SessionEntry(number=number, started=entry.key)
            playing = True
        elif session is None:
            raise invalid_copy(where, _("nombra una sesión que el registro no empieza."))
        elif isinstance(payload, events.SessionEnded):
            if session.ended is not None:
                raise invalid_copy(where, _("termina una sesión ya terminada."))
            session.ended = entry.key
            playing = False
        elif isinstance(payload, events.SessionShared):
            if (session.shared_at is not None) == payload.shared:
                raise invalid_copy(where, _("comparte un resumen ya compartido, o retira uno que no lo estaba."))
            session.shared_at = entry.created if payload.shared else None
    sessions = [found[number] for number in sorted(found)]
    if not isinstance(document.sessions, list):
        return sessions
    for index, (given, said) in enumerate(zip(document.sessions, sessions, strict=False)):
        if given != said:
            raise invalid_copy(f"$.sessions[{index}]", _("no es la sesión que dice el registro."))
    if len(document.sessions) != len(sessions):
        raise invalid_copy("$.sessions", _("no son las sesiones que dice el registro."))
    return sessions
