"""The forms of called checks: a player's (or the GM's) answer with the die rolled or "the server rolls", and the
GM taking back checks still waiting."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django import forms
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from campaigns.models import Campaign
from play.forms.base import ActionForm
from play.forms.fields import RowChoiceField, WholeNumberField
from rules import actions, engine
from rules.actions import Actor
from rules.actions.checks import die_sides
from rules.models import CalledCheck, CallStatus


class CheckAnswerForm(ActionForm[Actor, actions.Outcome], forms.Form):
    """A called check's answer: the die rolled at the table, or "the server rolls". Any check of the campaign still
    waiting can be chosen, and only those of `answerable` characters (a player's own, or every one for the GM) are
    answered: another's is refused as not theirs, one no longer waiting as that."""

    # Only a die the action refuses is said beside it; anything else (the check answered meanwhile) above the check,
    # which is drawn again with it.
    action_fields = {"die": "die", "*": None}

    check = RowChoiceField(
        queryset=CalledCheck.objects.none(),
        widget=forms.HiddenInput,
        error_messages={"invalid_choice": _("Esa tirada ya no está pendiente: ya se tiró o se anuló.")},
    )
    die = WholeNumberField(
        label=_("Tu dado"),
        required=False,
        min_value=1,
        max_value=engine.FALL_DIE,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "die", "autocomplete": "off"}),
    )
    server = forms.BooleanField(required=False)

    def __init__(self, *args: Any, checks: QuerySet[CalledCheck], answerable: Collection[int], **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.answerable = answerable
        field = self.fields["check"]
        assert isinstance(field, RowChoiceField)
        field.queryset = checks.filter(status=CallStatus.PENDING)
        if self["server"].data:  # read as the field reads it: "false", "False" and "" are no
            del self.fields["die"]  # the button says the server rolls: a half-typed die does not count

    def clean_check(self) -> CalledCheck:
        check: CalledCheck = self.cleaned_data["check"]
        if check.character_id not in self.answerable:
            raise forms.ValidationError(
                _("Esa tirada es de un personaje que no es tuyo: la tira su jugador o el narrador.")
            )
        return check

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        check, die = data.get("check"), data.get("die")
        if data.get("server"):
            data["die"] = None
        elif die is None and "die" not in self.errors:
            self.add_error("die", _("Escribe el dado que sacaste, o deja tirar al servidor."))
        elif check is not None and die is not None and die > (sides := die_sides(check.kind)):
            self.add_error("die", _("Un 1d%(sides)s da de 1 a %(sides)s.") % {"sides": sides})
        return data

    def perform(self, by: Actor) -> actions.Outcome:
        data = self.cleaned_data
        return actions.answer_check(data["check"].campaign_id, data["check"], by=by, die=data["die"])


class CheckCancelForm(ActionForm[Actor, actions.Outcome], forms.Form):
    """The GM takes back one or several called checks still waiting."""

    action_fields = {"*": None}  # whatever the action says, above the calls

    checks = forms.ModelMultipleChoiceField(
        queryset=CalledCheck.objects.none(),
        widget=forms.MultipleHiddenInput,
        error_messages={"invalid_choice": _("Esa tirada ya no está pendiente: ya se tiró o se anuló.")},
    )

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        field = self.fields["checks"]
        assert isinstance(field, forms.ModelMultipleChoiceField)
        field.queryset = CalledCheck.objects.filter(campaign=campaign)

    def perform(self, by: Actor) -> actions.Outcome:
        return actions.cancel_check(self.campaign, self.cleaned_data["checks"], by=by)
