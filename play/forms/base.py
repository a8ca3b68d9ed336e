"""What the forms that act share: ActionForm, whose `apply` runs the form's one action and puts its ActionError on
the form; the fingerprint of the choices a form was drawn with (StaleChoices); and TableActionForm, the base of the
GM's action forms on the table, with the fields several of them ask for."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from django import forms
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from characters.models import Character
from config.compiled import Compiled
from play.forms.fields import RosterField, RowChoiceField, WholeNumberField, add_action_error
from rules import actions, engine
from rules.actions import ActionError, Actor

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


# The campaign's characters in play, in name order: read by every action form (config.compiled).
IN_PLAY = Compiled(lambda campaign: Character.objects.filter(campaign=campaign).order_by("name", "id"))


class ActionForm[By, T](forms.BaseForm):
    """A form that performs one action of rules.actions (`perform`, by whom: `By`, what it answers: `T`). Views call
    `apply`: on an ActionError the message goes beside the field it names, or above the form, and nothing is
    answered; `action_error` keeps it for a view that answers some of them otherwise."""

    # The action names its own input; where this form asks for it under another name, the message goes there
    # (None: above the form; "*": every other name, and none).
    action_fields: ClassVar[Mapping[str, str | None]] = {}

    action_error: ActionError | None = None

    def perform(self, by: By) -> T:
        raise NotImplementedError

    def apply(self, by: By) -> T | None:
        """The action's answer, or None when it refused: its message is then on the form."""
        return self.attempt(lambda: self.perform(by))

    def attempt[R](self, call: Callable[[], R]) -> R | None:
        """What `call` answers, or None when it raised an ActionError, put on the form (a preview, say)."""
        try:
            return call()
        except ActionError as error:
            self.action_error = error
            add_action_error(self, error, self.action_fields)
            return None


class PageForm(forms.BaseForm):
    """A form that is a page of its own (a new character, a disease, a campaign): it opens with the keyboard in its
    first field (HTML autofocus: no script needed), and after a refusal in the first field the refusal is about."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.focus(self.shown())

    def add_error(self, field: str | None, error: Any) -> None:
        super().add_error(field, error)  # while cleaning, or after it (an action's refusal): `errors` is there
        self.focus([name for name in self.shown() if name in self.errors])

    def shown(self) -> list[str]:
        return [name for name, field in self.fields.items() if not field.widget.is_hidden]

    def focus(self, names: list[str]) -> None:
        """The first of these fields takes the focus, and no other (none: left as it was)."""
        if not names:
            return
        for name in self.shown():
            self.fields[name].widget.attrs.pop("autofocus", None)
        self.fields[names[0]].widget.attrs["autofocus"] = True


class StaleChoices(forms.BaseForm):
    """A form that sends back, in its hidden field `choices`, a fingerprint of every choice it offered when it was
    drawn: if they changed since (another tab, another GM's script), it is stale and applies nothing."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["choices"] = forms.CharField(required=False, widget=forms.HiddenInput)

    def more_choices(self) -> dict[str, list[int]]:
        """What else the form offers besides its fields' rows (the table's forms: who is dead), by name."""
        return {}

    def choices_now(self) -> str:
        """A fingerprint of every choice the form offers (characters, the dead, diseases, healers, illnesses)."""
        parts = []
        for name, field in self.fields.items():
            if isinstance(field, forms.ModelChoiceField) and field.queryset is not None:
                parts.append(f"{name}:{','.join(str(pk) for pk in self.choice_pks(name, field))}")
        for name, field in self.fields.items():
            if isinstance(field, RosterField):
                parts.append(f"{name}:{','.join(field.rows)}")
        for name, pks in self.more_choices().items():
            parts.append(f"{name}:" + ",".join(str(pk) for pk in pks))
        return hashlib.sha256(";".join(parts).encode()).hexdigest()[:16]

    def choice_pks(self, name: str, field: forms.ModelChoiceField) -> list[int]:
        """The rows a choice field offers, by id."""
        assert field.queryset is not None
        return list(field.queryset.values_list("pk", flat=True))

    def stale(self) -> bool:
        """Drawn before a change that altered its choices (another tab, another GM's script): say so, apply nothing."""
        drawn = self.data.get("choices") if self.is_bound else None
        return bool(drawn) and drawn != self.choices_now()


class TableActionForm(StaleChoices, ActionForm[Actor, actions.Outcome], forms.Form):
    """A GM's action form on the table, bound to one campaign: character choices never leave it (another campaign's
    ids are invalid)."""

    def __init__(
        self,
        *args: Any,
        campaign: Campaign,
        dice_for: Character | None = None,
        roster: list[Character] | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("label_suffix", "")
        self.campaign = campaign
        if roster is not None:  # read already, with the campaign (play.views.table.gm_table)
            self.__dict__["roster"] = roster
        self.dice_for = dice_for  # whose typed dice to ask for (a card's character); None: everyone's
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        # A hidden field (the choices drawn, the characters shown) has no place on the page for its message: it goes
        # above the form, so a refusal always says why.
        for name, field in self.fields.items():
            if field.widget.is_hidden and name in self.errors:
                for message in self.errors.pop(name):
                    self.add_error(None, message)
        return data

    def more_choices(self) -> dict[str, list[int]]:
        return {"dead": sorted(self.dead_ids)}

    @cached_property
    def roster(self) -> list[Character]:
        """The campaign's characters in play, read once for every use of the form (choices, the dead, the dice)."""
        return IN_PLAY.list(campaign=self.campaign.pk)

    @cached_property
    def dead_ids(self) -> set[int]:
        return {character.pk for character in self.roster if character.dead}

    def preselect_single_choices(self) -> None:
        """A choice with one option is already made (a single healer, a single illness)."""
        for name, field in self.fields.items():
            if type(field) is RowChoiceField and field.queryset is not None and name not in self.initial:
                only = list(field.queryset[:2])
                if len(only) == 1:
                    self.initial[name] = only[0].pk
                    field.empty_label = None

    def characters(self) -> QuerySet[Character]:
        return self.campaign.characters.order_by("name", "id")  # as IN_PLAY

    def rollers(self) -> list[Character]:
        return [self.dice_for] if self.dice_for is not None else self.roster

    def dice_fields(self) -> list[forms.BoundField]:
        """The typed dice, shown together: empty means the server rolls."""
        return [field for field in self if field.name.startswith("die")]

    def other_fields(self) -> list[forms.BoundField]:
        return [field for field in self if not field.name.startswith("die")]

    # The check this form can call for, for the players to roll on their phones (rules.actions.checks), if any: its
    # "Pedir la tirada" button posts `call`.
    calls: str = ""

    @property
    def calling(self) -> bool:
        return bool(self.calls) and self.data.get("call") == "1"


# --- the fields several table forms ask for --------------------------------------------------------------------------

CHOOSE = _("— elige —")  # the empty option of a select, in the UI's language


def ranged(name: str, label: StrOrPromise, required: bool = False, initial: int | None = None) -> forms.IntegerField:
    """A number field whose range is the engine's (docs/rules.md §7.11)."""
    low, high = engine.LIMITS[name]
    return WholeNumberField(
        label=label,
        required=required,
        initial=initial,
        min_value=low,
        max_value=high,
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


def die_field(label: StrOrPromise, sides: int) -> forms.IntegerField:
    return WholeNumberField(
        label=label,
        required=False,
        min_value=1,
        max_value=sides,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "die", "placeholder": f"1–{sides}"}),
    )


def dice_of(data: dict[str, Any]) -> dict[int, int | None]:
    """The dice typed at the table, by character id; an empty field means the server rolls."""
    return {int(name.removeprefix("die_")): value for name, value in data.items() if name.startswith("die_")}


def who_field(form: TableActionForm) -> RosterField:
    """The characters a group action acts on, from the form's roster: the living ticked to begin with."""
    if "characters" not in form.initial:
        form.initial["characters"] = [c.pk for c in form.roster if c.pk not in form.dead_ids]
    return RosterField(form.roster, label=_("Personajes"), widget=forms.CheckboxSelectMultiple)
