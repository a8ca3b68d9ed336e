"""What the GM deals to several characters at once: damage of one kind (each kind asks for its own fields and says
what damage they describe) and exposure to a disease (each character's resistance roll); either can be called as a
check for the players to roll on their phones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from play.forms.base import CHOOSE, TableActionForm, dice_of, die_field, ranged, who_field
from play.forms.fields import RowChoiceField, digits
from rules import actions, engine
from rules.actions import Actor
from rules.damage import Attack, Collision, Damage, Drowning, Fall, Gas
from rules.models import DAMAGE_KINDS, CheckKind, Disease, WoundKind

# --- per kind, the fields it asks for and the damage they describe ---------------------------------------------------


def attack_fields(form: TableActionForm) -> dict[str, forms.Field]:
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


def collision_fields(form: TableActionForm) -> dict[str, forms.Field]:
    return {"speed_kmh": ranged("speed_kmh", _("Velocidad (km/h)"), required=True), "weight_kg": weight_field()}


def collision(data: dict[str, Any]) -> Damage:
    return Collision(data["speed_kmh"], data.get("weight_kg"))


def fall_fields(form: TableActionForm) -> dict[str, forms.Field]:
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


def turns_fields(form: TableActionForm) -> dict[str, forms.Field]:
    return {"turns": ranged("turns", _("Turnos"), required=True)}


type KindFields = Callable[[TableActionForm], dict[str, forms.Field]]
DAMAGE_INPUTS: dict[str, tuple[KindFields, Callable[[dict[str, Any]], Damage]]] = {
    WoundKind.ATTACK: (attack_fields, attack),
    WoundKind.COLLISION: (collision_fields, collision),
    WoundKind.FALL: (fall_fields, fall),
    WoundKind.DROWNING: (turns_fields, lambda data: Drowning(data["turns"])),
    WoundKind.GAS: (turns_fields, lambda data: Gas(data["turns"])),
}


class DamageForm(TableActionForm):
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


class ExposeForm(TableActionForm):
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
