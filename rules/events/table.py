"""The payloads of what changes the table around health: sheets, characters, invitations, the campaign, its diseases
and its called checks."""

from __future__ import annotations

from rules.events.base import (
    CharacterRef,
    DiseaseRef,
    EventKind,
    InvitationRef,
    Payload,
    Record,
    Signed,
    Text,
    UserRef,
    Whole,
)
from rules.models import CheckKind

# --- the sheet, invitations, the campaign -----------------------------------------------------------------------------


class SheetChanges(Record):
    """A character's sheet fields that an edit changed, each as [before, after] (rules.actions.sheet.Sheet)."""

    name: tuple[Text, Text] | None = None
    constitution: tuple[Signed, Signed] | None = None
    jump: tuple[Signed, Signed] | None = None
    heal_wounds: tuple[Signed, Signed] | None = None
    weight_kg: tuple[Signed, Signed] | None = None
    notes: tuple[Text, Text] | None = None
    player_id: tuple[UserRef, UserRef] | None = None
    party_view: tuple[Text, Text] | None = None
    rests_between_sessions: tuple[bool, bool] | None = None


class CharacterAdded(Payload):
    kind_of_event = EventKind.CHARACTER_ADDED
    about_one = roster = True
    name: Text
    player: Text = ""


class CharacterEdited(Payload):
    kind_of_event = EventKind.CHARACTER_EDITED
    health = about_one = in_play = roster = True
    name: Text
    changes: SheetChanges
    revoked: list[InvitationRef] = []
    players: tuple[Text, Text] | None = None  # the players' names, when the player changed


class CharacterRemoved(Payload):
    kind_of_event = EventKind.CHARACTER_REMOVED
    about_one = in_play = roster = calls = True
    name: Text
    revoked: list[InvitationRef] = []
    # The checks it still owed, called off (their ids where it was played, as CheckCancelled).
    cancelled: list[Whole] = []


class Named(Record):  # a character by id and by the name it had then
    character: CharacterRef
    name: Text


class CharactersAdded(Payload):  # quick NPCs: several characters at once ("Guardia 1"…"Guardia 6"), each unhurt
    kind_of_event = EventKind.CHARACTERS_ADDED
    roster = True
    added: list[Named]


class CharactersRemoved(Payload):  # several taken out at once: what CharacterRemoved keeps of one, for each
    kind_of_event = EventKind.CHARACTERS_REMOVED
    in_play = roster = calls = True
    removed: list[Named]
    revoked: list[InvitationRef] = []
    cancelled: list[Whole] = []


class TemplateValues(Record):  # a quick NPCs' template (characters.models.NpcTemplate): its name and values
    name: Text
    count: Whole
    constitution: Signed
    jump: Signed = 0
    heal_wounds: Signed = 0
    weight_kg: Signed = 70
    party_view: Text = ""
    notes: Text = ""


class TemplateChanged(Payload):  # a template saved (`before` None), saved again, or deleted (`after` None)
    kind_of_event = EventKind.TEMPLATE_CHANGED
    before: TemplateValues | None = None
    after: TemplateValues | None = None

    def __post_init__(self) -> None:
        if self.before is None and self.after is None:
            raise ValueError("a template before or after the change")


class InvitationCreated(Payload):
    kind_of_event = EventKind.INVITATION_CREATED
    about_one = in_play = True
    name: Text
    invitation: InvitationRef = None


class InvitationRevoked(Payload):
    kind_of_event = EventKind.INVITATION_REVOKED
    about_one = True
    name: Text
    invitation: InvitationRef = None


class InvitationClaimed(Payload):
    kind_of_event = EventKind.INVITATION_CLAIMED
    about_one = in_play = roster = True
    name: Text
    player: Text
    invitation: InvitationRef = None
    joined: bool = False


class CampaignChanges(Record):
    name: tuple[Text, Text] | None = None
    gm_id: tuple[UserRef, UserRef] | None = None
    party_view: tuple[Text, Text] | None = None


class CampaignEdited(Payload):
    kind_of_event = EventKind.CAMPAIGN_EDITED
    roster = True
    changes: CampaignChanges
    gms: tuple[Text, Text] | None = None  # the GMs' names, when the GM changed


# --- diseases ---------------------------------------------------------------------------------------------------------


class DiseaseChanges(Record):
    """A campaign disease's fields that an edit changed, each as [before, after] (rules.actions.diseases)."""

    name: tuple[Text, Text] | None = None
    category: tuple[Text, Text] | None = None
    penalty: tuple[Signed, Signed] | None = None
    pg_per_week: tuple[Signed | None, Signed | None] | None = None


class DiseaseAdded(Payload):
    kind_of_event = EventKind.DISEASE_ADDED
    changes_disease = True
    disease: DiseaseRef
    name: Text


class DiseaseEdited(Payload):
    kind_of_event = EventKind.DISEASE_EDITED
    changes_disease = True
    disease: DiseaseRef
    name: Text
    changes: DiseaseChanges


class DiseaseRetired(Payload):
    kind_of_event = EventKind.DISEASE_RETIRED
    changes_disease = True
    disease: DiseaseRef
    name: Text


class DiseaseRestored(Payload):
    kind_of_event = EventKind.DISEASE_RESTORED
    changes_disease = True
    disease: DiseaseRef
    name: Text


# --- called checks ----------------------------------------------------------------------------------------------------


class CheckCalled(Payload):
    kind_of_event = EventKind.CHECK_CALLED
    calls = True
    check: CheckKind
    skipped: list[CharacterRef] = []
    protected: list[CharacterRef] = []
    height_m: Whole | None = None
    difficulty: Whole | None = None
    weight_kg: Whole | None = None
    disease: Text | None = None  # a resistance check's disease, by name


class CheckCancelled(Payload):
    kind_of_event = EventKind.CHECK_CANCELLED
    calls = True
    check: CheckKind
    checks: list[Whole] = []  # the called checks' ids where it was played (a backup keeps them as they are)
    height_m: Whole | None = None
    difficulty: Whole | None = None
    disease: Text | None = None
