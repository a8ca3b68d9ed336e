"""The payloads of a campaign's co-GMs (rules.actions.co_gms): the owner's link "como co-narrador" made or revoked,
someone joining through it, and the owner removing a co-GM. Accounts do not travel in a backup: the user references
become None there and the names stay as text."""

from __future__ import annotations

from rules.events.base import EventKind, InvitationRef, Payload, Text, UserRef


class CoGmLink(Payload):
    """The owner made a co-GM link, or revoked one (`revoked`)."""

    kind_of_event = EventKind.CO_GM_LINK
    invitation: InvitationRef = None
    revoked: bool = False


class CoGmJoined(Payload):
    """Someone joined as co-GM through a link; `was_player`: they were already a player of the campaign (undo makes
    them a player again, not a stranger)."""

    kind_of_event = EventKind.CO_GM_JOINED
    name: Text
    user: UserRef = None
    invitation: InvitationRef = None
    was_player: bool = False


class CoGmRemoved(Payload):
    """The owner removed a co-GM; `stays_player`: they play characters here, and go on playing them as a player."""

    kind_of_event = EventKind.CO_GM_REMOVED
    name: Text
    user: UserRef = None
    stays_player: bool = False
