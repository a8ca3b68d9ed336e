"""The GM's action forms. They check what a person can get wrong (ranges, text in numbers) and build the action's
input; rules.actions checks the rest, and its ActionError lands beside the field it names."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from django import forms
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from campaigns.clock import parse_duration
from campaigns.models import Campaign
from characters.models import Character
from rules import actions, engine, queries
from rules.actions import Actor
from rules.damage import Attack, Collision, Damage, Drowning, Fall, Gas
from rules.forms import RowChoiceField, WholeNumberField, digits, refuse
from rules.models import DAMAGE_KINDS, CheckKind, Disease, Illness, WoundKind

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


CHOOSE = _("— elige —")  # the empty option of a select, in the UI's language


def ranged(name: str, label: StrOrPromise, required: bool = False, initial: int | None = None) -> forms.IntegerField:
    """A number field whose range is the engine's (RULES.md section 7.11)."""
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


class CampaignForm(forms.Form):
    """A form bound to one campaign: character choices never leave it (another campaign's ids are invalid)."""

    # An action's refusal names its own input; where this form asks for it under another name, the message goes there.
    action_fields: dict[str, str] = {}

    def __init__(self, *args: Any, campaign: Campaign, dice_for: Character | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.dice_for = dice_for  # whose typed dice to ask for (a card's character); None: everyone's
        # The choices this form offered when it was drawn: if they changed since, the form is not applied.
        self.fields["choices"] = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        # A hidden field (the choices drawn, the characters shown) has no place on the page for its message: it goes
        # above the form, so a refusal always says why.
        for name, field in self.fields.items():
            if field.widget.is_hidden and name in self.errors:
                for message in self.errors.pop(name):
                    self.add_error(None, message)
        return data

    def choices_now(self) -> str:
        """A fingerprint of every choice the form offers (characters, the dead, diseases, healers, illnesses)."""
        parts = []
        for name, field in self.fields.items():
            if isinstance(field, forms.ModelChoiceField) and field.queryset is not None:
                parts.append(f"{name}:{','.join(str(pk) for pk in field.queryset.values_list('pk', flat=True))}")
        parts.append("dead:" + ",".join(str(pk) for pk in sorted(self.dead_ids)))
        return hashlib.sha256(";".join(parts).encode()).hexdigest()[:16]

    def stale(self) -> bool:
        """Drawn before a change that altered its choices (another tab, another GM's script): say so, apply nothing."""
        drawn = self.data.get("choices") if self.is_bound else None
        return bool(drawn) and drawn != self.choices_now()

    @cached_property
    def dead_ids(self) -> set[int]:
        return {character.pk for character in self.characters() if character.dead}

    def preselect_single_choices(self) -> None:
        """A choice with one option is already made (a single healer, a single illness)."""
        for name, field in self.fields.items():
            if type(field) is RowChoiceField and field.queryset is not None and name not in self.initial:
                only = list(field.queryset[:2])
                if len(only) == 1:
                    self.initial[name] = only[0].pk
                    field.empty_label = None

    def characters(self) -> QuerySet[Character]:
        return self.campaign.characters.order_by("name", "id")

    def rollers(self) -> list[Character]:
        return [self.dice_for] if self.dice_for is not None else list(self.characters())

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

    def perform(self, by: Actor) -> actions.Outcome:
        raise NotImplementedError

    def refuse(self, error: actions.ActionError) -> None:
        """An action's refusal, beside the field it is about, or above the form."""
        refuse(self, error, self.action_fields)


# --- damage: per kind, the fields it asks for and the damage they describe -------------------------------------------


def attack_fields(form: CampaignForm) -> dict[str, forms.Field]:
    return {
        "amount": forms.CharField(
            label=_("Daño (PG o tirada)"), max_length=50, help_text=_("Un número (7) o dados (2d6+1).")
        )
    }


def attack(data: dict[str, Any]) -> Damage:
    text = data["amount"].strip()
    amount = digits(text)
    return Attack(amount=amount) if amount is not None else Attack(expression=text)


def weight_field() -> forms.IntegerField:
    field = ranged("weight_kg", _("Peso (kg)"))
    field.help_text = _("Vacío: el peso de cada hoja.")
    return field


def collision_fields(form: CampaignForm) -> dict[str, forms.Field]:
    return {"speed_kmh": ranged("speed_kmh", _("Velocidad (km/h)"), required=True), "weight_kg": weight_field()}


def collision(data: dict[str, Any]) -> Damage:
    return Collision(data["speed_kmh"], data.get("weight_kg"))


def fall_fields(form: CampaignForm) -> dict[str, forms.Field]:
    fields: dict[str, forms.Field] = {
        "height_m": ranged("height_m", _("Altura (m)"), required=True),
        "weight_kg": weight_field(),
        "difficulty": ranged("difficulty", _("Dificultad"), required=True, initial=engine.DEFAULT_FALL_DIFFICULTY),
    }
    for character in form.rollers():
        label = _("1d%(sides)s de %(name)s (+ Saltar %(jump)s)") % {
            "sides": engine.FALL_DIE,
            "name": character.name,
            "jump": character.jump,
        }
        fields[f"die_{character.pk}"] = die_field(label, engine.FALL_DIE)
    return fields


def fall(data: dict[str, Any]) -> Damage:
    return Fall(data["height_m"], data.get("weight_kg"), data["difficulty"], dice_of(data))


def turns_fields(form: CampaignForm) -> dict[str, forms.Field]:
    return {"turns": ranged("turns", _("Turnos"), required=True)}


DAMAGE_INPUTS: dict[str, tuple[Callable[[CampaignForm], dict[str, forms.Field]], Callable[[dict[str, Any]], Damage]]]
DAMAGE_INPUTS = {
    WoundKind.ATTACK: (attack_fields, attack),
    WoundKind.COLLISION: (collision_fields, collision),
    WoundKind.FALL: (fall_fields, fall),
    WoundKind.DROWNING: (turns_fields, lambda data: Drowning(data["turns"])),
    WoundKind.GAS: (turns_fields, lambda data: Gas(data["turns"])),
}


def who_field(form: CampaignForm) -> forms.ModelMultipleChoiceField:
    """The characters a group action acts on: the living ticked to begin with, the dead listed last and unticked."""
    if "characters" not in form.initial:
        form.initial["characters"] = [c.pk for c in form.characters() if c.pk not in form.dead_ids]
    return forms.ModelMultipleChoiceField(
        label=_("Personajes"), queryset=form.characters(), widget=forms.CheckboxSelectMultiple
    )


class DamageForm(CampaignForm):
    action_fields = {"expression": "amount"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The kind first: "Daño a varios", then a letter, picks it from the keyboard (g for gas).
        self.fields["kind"] = forms.ChoiceField(
            label=_("Tipo de daño"), choices=[(kind.value, kind.label) for kind in DAMAGE_KINDS]
        )
        # The kind whose fields the page showed (the template writes it beside them): a kind changed while its
        # fields were still on their way must not be applied with the other kind's fields.
        self.fields["fields_for"] = forms.CharField(required=False, widget=forms.HiddenInput)
        self.fields["characters"] = who_field(self)
        kind = self.data.get("kind") or self.initial.get("kind") or WoundKind.ATTACK
        self.kind_shown = str(kind) if kind in DAMAGE_INPUTS else WoundKind.ATTACK.value
        fields, _damage = DAMAGE_INPUTS[self.kind_shown]
        own = fields(self)
        self.kind_names = set(own)
        self.fields.update(own)
        self.calls = CheckKind.FALL if kind == WoundKind.FALL else ""
        if isinstance(self.data, QueryDict) and self.data.get("fields_for") not in (None, "", self.kind_shown):
            # Refused below (clean): drawn again for this kind, its defaults (the fall's difficulty) are in place.
            data = self.data.copy()
            for name, field in own.items():
                if name not in data and field.initial is not None:
                    data[name] = str(field.initial)
            self.data = data

    def kind_fields(self) -> list[forms.BoundField]:
        """The kind's own fields (its dice aside), drawn together right under the kind and redrawn when it changes."""
        return [field for field in self if field.name in self.kind_names and not field.name.startswith("die")]

    def other_fields(self) -> list[forms.BoundField]:
        return [field for field in super().other_fields() if field.name not in self.kind_names]

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        shown, kind = data.get("fields_for"), data.get("kind")
        if shown and kind and shown != kind:
            # The page showed another kind's fields: apply nothing, and draw this kind's fields, without the
            # complaints of fields the GM has not seen yet.
            for name in self.kind_names:
                self.errors.pop(name, None)
            message = _(
                "Los campos que había no eran los de «%(kind)s»: no se ha aplicado nada. Rellénalos y vuelve a "
                "enviarlo."
            )
            self.add_error(None, message % {"kind": WoundKind(kind).label})
        return data

    def perform(self, by: Actor) -> actions.Outcome:
        data = self.cleaned_data
        if self.calling:
            call = actions.Call(CheckKind.FALL, data["height_m"], data.get("weight_kg"), data["difficulty"])
            return actions.call_check(self.campaign, data["characters"], call, by=by)
        _fields, damage = DAMAGE_INPUTS[data["kind"]]
        return actions.apply_damage(self.campaign, data["characters"], damage(data), by=by)


class ExposeForm(CampaignForm):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["disease"] = RowChoiceField(
            label=_("Enfermedad"), queryset=Disease.objects.available_in(self.campaign), empty_label=CHOOSE
        )
        self.fields["characters"] = who_field(self)
        for character in self.rollers():
            label = _("1d%(sides)s de %(name)s (+ CON %(con)s)") % {
                "sides": engine.RESISTANCE_DIE,
                "name": character.name,
                "con": character.constitution,
            }
            self.fields[f"die_{character.pk}"] = die_field(label, engine.RESISTANCE_DIE)

    calls = CheckKind.RESISTANCE

    def perform(self, by: Actor) -> actions.Outcome:
        data = self.cleaned_data
        if self.calling:
            call = actions.Call(CheckKind.RESISTANCE, disease=data["disease"])
            return actions.call_check(self.campaign, data["characters"], call, by=by)
        return actions.expose(
            self.campaign, data["characters"], data["disease"], by=by, dice_by_character=dice_of(data)
        )


class PatientForm(CampaignForm):
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


# --- the clock -------------------------------------------------------------------------------------------------------

# Presets of the clock control: (seconds, label, resting). Time in action is not rest; the long ones are.
PRESETS: list[tuple[str, StrOrPromise, bool]] = [
    ("6", _("+1 turno"), False),
    ("60", _("+1 minuto"), False),
    ("3600", _("+1 hora"), False),
    ("28800", _("+8 horas de descanso"), True),
    ("86400", _("+1 día de descanso"), True),
    ("604800", _("+1 semana de descanso"), True),
]


class RestingRow(NamedTuple):
    pk: int
    name: str
    ticked: bool


class AdvanceForm(CampaignForm):
    """The clock: a preset button, or the duration typed in (Enter in that field advances exactly what it says)."""

    action_fields = {"seconds": "duration"}

    in_play: list[Character] | None = None  # the characters in play, when the caller has them at hand (the cards)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["preset"] = forms.ChoiceField(required=False, choices=[(v, label) for v, label, _r in PRESETS])
        self.fields["duration"] = forms.CharField(
            label=_("Otra duración"),
            required=False,
            max_length=100,
            help_text=_("Por ejemplo 90s, 3t (turnos), 8h, 1d12h, 2 semanas. Descansan los marcados."),
        )
        # Removed characters stay valid choices, so that a tab that still shows one can still advance the clock.
        everyone = Character.everyone.filter(campaign=self.campaign)
        self.fields["resting"] = forms.ModelMultipleChoiceField(
            label=_("Descansan (con los botones de descanso y con otra duración)"),
            queryset=everyone,
            required=False,
            widget=forms.CheckboxSelectMultiple,
        )
        self.fields["shown"] = forms.ModelMultipleChoiceField(
            queryset=everyone, required=False, widget=forms.MultipleHiddenInput
        )
        self.fields["preview_first"] = forms.BooleanField(label=_("Ver antes qué pasará"), required=False)
        # The campaign version a preview was made at, sent back by its "Aplicar" button.
        self.fields["version"] = WholeNumberField(
            required=False, min_value=0, max_value=2**63 - 1, widget=forms.HiddenInput
        )

    @cached_property
    def resting_choices(self) -> list[Character]:
        return list(self.characters()) if self.in_play is None else self.in_play

    @cached_property
    def resting_ticked(self) -> set[int]:
        """Who is ticked: what was posted, or everyone on a fresh form (everyone rests unless unticked)."""
        if not self.is_bound:
            return {character.pk for character in self.resting_choices}
        posted = self["resting"].value() or []
        return {pk for value in posted if (pk := digits(value)) is not None}

    @property
    def resting_rows(self) -> tuple[RestingRow, ...]:
        """Who rests, row by row, as components/resting.html draws them."""
        ticked = self.resting_ticked
        return tuple(RestingRow(c.pk, c.name, c.pk in ticked) for c in self.resting_choices)

    @property
    def presets(self) -> list[tuple[str, StrOrPromise, bool]]:
        return PRESETS

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("preset"):
            data["seconds"] = int(data["preset"])
            data["rest"] = {value: rest for value, _label, rest in PRESETS}[data["preset"]]
        elif data.get("duration"):
            try:
                data["seconds"] = parse_duration(data["duration"])
            except ValueError as error:
                self.add_error("duration", str(error))
            data["rest"] = True
        elif not self.errors:
            self.add_error("duration", _("Elige un botón o escribe una duración."))
        return data

    def who_rests(self) -> dict[str, Any]:
        """advance_clock's (and preview_advance's) arguments for who rests."""
        data = self.cleaned_data
        if not data["rest"]:
            return {"resting": []}
        if data["shown"]:
            # Only those this tab showed and the GM unticked stay awake: a character added since rests by default.
            return {"not_resting": set(data["shown"]) - set(data["resting"])}
        return {"resting": [character for character in data["resting"] if not character.removed]}

    @property
    def previewing(self) -> bool:
        """ "Ver antes qué pasará" ticked, and no preview applied yet: show what the advance will do, change nothing."""
        return bool(self.cleaned_data.get("preview_first")) and self.cleaned_data.get("version") is None

    def preview(self) -> queries.AdvancePreview:
        return queries.preview_advance(self.campaign, self.cleaned_data["seconds"], **self.who_rests())

    def perform(self, by: Actor) -> actions.Outcome:
        # Applying a preview names the campaign version it was made at: if anything changed since, it is refused.
        version = self.cleaned_data.get("version")
        return actions.advance_clock(
            self.campaign, self.cleaned_data["seconds"], by=by, version=version, **self.who_rests()
        )
