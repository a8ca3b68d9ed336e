"""Care for one character, the patient, chosen by the card the form was opened from: treating wounds, treating an
illness, giving medicine, and the exertion check."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from play.forms.base import CHOOSE, TableActionForm, die_field
from play.forms.fields import RowChoiceField
from rules import actions, engine
from rules.actions import Actor
from rules.models import CheckKind, Illness


class PatientForm(TableActionForm):
    """An action on one character, the patient, chosen by the card it was opened from."""

    def __init__(self, *args: Any, patient: Character, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.patient = patient

    def healers(self) -> QuerySet[Character]:
        return self.characters().filter(heal_wounds__gte=1, died_at=None, pg__gt=0)

    def illnesses(self) -> QuerySet[Illness]:
        return Illness.objects.filter(character=self.patient, cured_at=None).select_related("disease")


class TreatWoundsForm(PatientForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["healer"] = RowChoiceField(
            label=_("Sanador (Curar Heridas)"), queryset=self.healers(), empty_label=CHOOSE
        )

    def perform(self, by: Actor) -> actions.Outcome:
        return actions.treat_wounds(self.campaign, self.patient, self.cleaned_data["healer"], by=by)


class TreatIllnessForm(PatientForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["illness"] = RowChoiceField(
            label=_("Enfermedad"), queryset=self.illnesses().filter(treated=False), empty_label=CHOOSE
        )
        self.fields["healer"] = RowChoiceField(
            label=_("Sanador (otro personaje con Curar Heridas)"),
            queryset=self.healers().exclude(pk=self.patient.pk),
            empty_label=CHOOSE,
        )

    def perform(self, by: Actor) -> actions.Outcome:
        data = self.cleaned_data
        return actions.treat_illness(self.campaign, self.patient, data["illness"], data["healer"], by=by)


class MedicateForm(PatientForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["illness"] = RowChoiceField(
            label=_("Enfermedad"), queryset=self.illnesses().filter(medicated=False), empty_label=CHOOSE
        )

    def perform(self, by: Actor) -> actions.Outcome:
        return actions.medicate(self.campaign, self.patient, self.cleaned_data["illness"], by=by)


class ExertionForm(PatientForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        label = _("1d%(sides)s (+ CON %(con)s)") % {"sides": engine.EXERTION_DIE, "con": self.patient.constitution}
        self.fields["die"] = die_field(label, engine.EXERTION_DIE)

    calls = CheckKind.EXERTION

    def perform(self, by: Actor) -> actions.Outcome:
        if self.calling:
            return actions.call_check(self.campaign, [self.patient], actions.Call(CheckKind.EXERTION), by=by)
        return actions.exertion(self.campaign, self.patient, die=self.cleaned_data.get("die"), by=by)
