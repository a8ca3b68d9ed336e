"""The one write path: every change to game state is a function here.

Each action runs in one transaction, takes the campaign row's lock first and then the rows it changes, in one fixed
order, re-reads what it changes under the lock, asks the engine, writes only its own fields, appends one Event with
the rolls and the state before and after, bumps the campaign's version and sends `pg_notify` (rules.notify) with the
campaign and the affected character ids — never data. Bad input raises ActionError (a message for the GM) and writes
nothing. Every event can be undone (rules.actions.undo).
"""

from rules.actions.campaign import create_campaign, delete_campaign
from rules.actions.checks import Call, answer_check, call_check, cancel_check
from rules.actions.co_gms import create_co_gm_invitation, remove_co_gm, revoke_co_gm_invitation
from rules.actions.core import ActionError, Actor, FromTab, Outcome
from rules.actions.diseases import (
    DiseaseSheet,
    add_disease,
    edit_disease,
    name_clash_message,
    restore_disease,
    retire_disease,
    retire_site_diseases,
    save_site_disease,
    site_name_clash,
)
from rules.actions.game_sessions import end_session, open_session, share_recap, start_session
from rules.actions.health import (
    advance_clock,
    apply_damage,
    exertion,
    expose,
    medicate,
    treat_illness,
    treat_wounds,
)
from rules.actions.npcs import add_characters, delete_template, numbered_names, remove_characters, save_template
from rules.actions.running_time import set_running_time, tick
from rules.actions.sheet import (
    SHEET_FIELDS,
    InvitationGone,
    Sheet,
    add_character,
    claim_invitation,
    create_invitation,
    edit_campaign,
    edit_character,
    remove_character,
    revoke_invitation,
)
from rules.actions.undo import undo

__all__ = [
    "SHEET_FIELDS",
    "ActionError",
    "Actor",
    "FromTab",
    "Call",
    "DiseaseSheet",
    "InvitationGone",
    "Outcome",
    "Sheet",
    "add_character",
    "add_characters",
    "add_disease",
    "advance_clock",
    "answer_check",
    "apply_damage",
    "call_check",
    "cancel_check",
    "claim_invitation",
    "create_campaign",
    "create_co_gm_invitation",
    "create_invitation",
    "delete_campaign",
    "delete_template",
    "edit_campaign",
    "edit_character",
    "edit_disease",
    "end_session",
    "exertion",
    "expose",
    "medicate",
    "remove_character",
    "remove_co_gm",
    "remove_characters",
    "numbered_names",
    "open_session",
    "restore_disease",
    "retire_disease",
    "retire_site_diseases",
    "revoke_co_gm_invitation",
    "revoke_invitation",
    "name_clash_message",
    "save_site_disease",
    "save_template",
    "set_running_time",
    "share_recap",
    "site_name_clash",
    "start_session",
    "tick",
    "treat_illness",
    "treat_wounds",
    "undo",
]
