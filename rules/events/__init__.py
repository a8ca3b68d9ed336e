"""What each entry of the campaign log says: one typed payload per event kind (EventKind).

An action builds its payload (rules.actions), `Event.details` stores it as JSON, and everything that reads an entry —
the log's words (play.log), undo (rules.actions.undo) and the backup (rules.backup) — reads it back through
`payload_of`, which refuses a damaged entry with `DamagedEntry` instead of letting a missing key surface later. A new
event kind is one member of EventKind (rules.events.base) and one class in this package (with its flags: what it
does, for the screens and the backup) — rules.events.health for what changes health, rules.events.table for the rest
— one wording function in play.log (`@words`) and, when it changes more than health, one undo function in
rules.actions (`@undoes`).

A reference to a row is marked with what it refers to (`Refers`): a database id in the log, a document key ("c1") in
a backup, an id of no row (None) for what a backup leaves out (accounts, invitation links): rules.backup.references
finds and maps them all, so the backup never lists them by hand.
"""

from __future__ import annotations

from rules.events.base import (
    BIGINT,
    PAYLOADS,
    TEXT_LENGTH,
    Answer,
    CharacterKey,
    CharacterRef,
    DamagedEntry,
    DiseaseRef,
    EventKind,
    EventRef,
    InvitationRef,
    Payload,
    PgPair,
    Record,
    Refers,
    Signed,
    Text,
    UserRef,
    Whole,
    changed,
    decode,
    label_of,
    payload_of,
    stored,
)
from rules.events.co_gms import CoGmJoined, CoGmLink, CoGmRemoved
from rules.events.game_sessions import RunningTimeSet, Schedule, SessionEnded, SessionShared, SessionStarted
from rules.events.health import (
    Advance,
    Between,
    Damage,
    DamageDice,
    Exertion,
    Expose,
    Medicate,
    Roll,
    TreatIllness,
    TreatWounds,
    Undo,
    Undone,
)
from rules.events.table import (
    CampaignChanges,
    CampaignEdited,
    CharacterAdded,
    CharacterEdited,
    CharacterRemoved,
    CharactersAdded,
    CharactersRemoved,
    CheckCalled,
    CheckCancelled,
    DiseaseAdded,
    DiseaseChanges,
    DiseaseEdited,
    DiseaseRestored,
    DiseaseRetired,
    InvitationClaimed,
    InvitationCreated,
    InvitationRevoked,
    Named,
    SheetChanges,
    TemplateChanged,
    TemplateValues,
)

__all__ = [
    "Advance",
    "Answer",
    "BIGINT",
    "Between",
    "CampaignChanges",
    "CampaignEdited",
    "CharacterAdded",
    "CharacterEdited",
    "CharacterKey",
    "CharacterRef",
    "CharacterRemoved",
    "CharactersAdded",
    "CharactersRemoved",
    "CheckCalled",
    "CheckCancelled",
    "CoGmJoined",
    "CoGmLink",
    "CoGmRemoved",
    "Damage",
    "DamageDice",
    "DamagedEntry",
    "DiseaseAdded",
    "DiseaseChanges",
    "DiseaseEdited",
    "DiseaseRef",
    "DiseaseRestored",
    "DiseaseRetired",
    "EventKind",
    "EventRef",
    "Exertion",
    "Expose",
    "InvitationClaimed",
    "InvitationCreated",
    "InvitationRef",
    "InvitationRevoked",
    "Medicate",
    "Named",
    "PAYLOADS",
    "Payload",
    "PgPair",
    "Record",
    "Refers",
    "Roll",
    "RunningTimeSet",
    "Schedule",
    "SessionEnded",
    "SessionShared",
    "SessionStarted",
    "SheetChanges",
    "Signed",
    "TEXT_LENGTH",
    "TemplateChanged",
    "TemplateValues",
    "Text",
    "TreatIllness",
    "TreatWounds",
    "Undo",
    "Undone",
    "UserRef",
    "Whole",
    "changed",
    "decode",
    "label_of",
    "payload_of",
    "stored",
]

assert set(PAYLOADS) == set(EventKind), "every event kind has its payload"
