"""The GM's action forms. They check what a person can get wrong (ranges, text in numbers); rules.actions checks
the rest and its ActionError lands beside the field it names."""

from django import forms
from django.utils.translation import gettext_lazy as _

from campaigns.clock import parse_duration
from characters.models import Character
from rules import actions, engine
from rules.models import Disease, Illness

DAMAGE_KINDS = [
    ("attack", _("Ataque físico directo")),
    ("collision", _("Colisión")),
    ("fall", _("Caída")),
    ("drowning", _("Asfixia por inmersión")),
    ("gas", _("Gases nocivos")),
]


def ranged(name: str, label, required: bool = False, initial=None) -> forms.IntegerField:
    low, high = actions.LIMITS[name]
    return forms.IntegerField(label=label, required=required, initial=initial, min_value=low, max_value=high,
                              widget=forms.NumberInput(attrs={"inputmode": "numeric"}))


def die_field(label, sides: int) -> forms.IntegerField:
    return forms.IntegerField(
        label=label, required=False, min_value=1, max_value=sides,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "die", "placeholder": f"1–{sides}"}),
    )


class CampaignForm(forms.Form):
    """A form bound to one campaign: character choices never leave it (another campaign's ids are invalid)."""

    def __init__(self, *args, campaign, dice_for=None, **kwargs) -> None:
        kwargs.setdefault("label_suffix", "")
        super().__init__(*args, **kwargs)
        self.campaign = campaign
        self.dice_for = dice_for  # whose typed dice to ask for (a card's character); None: everyone's

    def characters(self):
        return self.campaign.characters.order_by("name", "id")

    def rollers(self):
        return [self.dice_for] if self.dice_for is not None else self.characters()

    def dice_fields(self) -> list:
        """The typed dice, shown together: empty means the server rolls."""
        return [field for field in self if field.name.startswith("die")]

    def other_fields(self) -> list:
        return [field for field in self if not field.name.startswith("die")]


class DamageForm(CampaignForm):
    characters_field = "characters"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["characters"] = forms.ModelMultipleChoiceField(
            label=_("Personajes"), queryset=self.characters(), widget=forms.CheckboxSelectMultiple)
        self.fields["kind"] = forms.ChoiceField(label=_("Tipo de daño"), choices=DAMAGE_KINDS)
        kind = self.data.get("kind") or self.initial.get("kind") or "attack"
        if kind == "attack":
            self.fields["amount"] = forms.CharField(
                label=_("Daño (PG o tirada)"), max_length=50, help_text=_("Un número (7) o dados (2d6+1)."))
        elif kind == "collision":
            self.fields["speed_kmh"] = ranged("speed_kmh", _("Velocidad (km/h)"), required=True)
            self.fields["weight_kg"] = ranged("weight_kg", _("Peso (kg)"))
            self.fields["weight_kg"].help_text = _("Vacío: el peso de cada hoja.")
        elif kind == "fall":
            self.fields["height_m"] = ranged("height_m", _("Altura (m)"), required=True)
            self.fields["weight_kg"] = ranged("weight_kg", _("Peso (kg)"))
            self.fields["weight_kg"].help_text = _("Vacío: el peso de cada hoja.")
            self.fields["difficulty"] = ranged("difficulty", _("Dificultad"), required=True,
                                               initial=engine.DEFAULT_FALL_DIFFICULTY)
            for character in self.rollers():
                self.fields[f"die_{character.pk}"] = die_field(
                    _("1d20 de %(name)s (+ Saltar %(jump)s)") % {"name": character.name, "jump": character.jump},
                    engine.FALL_DIE)
        else:
            self.fields["turns"] = ranged("turns", _("Turnos"), required=True)

    def perform(self, by) -> actions.Outcome:
        data = self.cleaned_data
        kind = data["kind"]
        kwargs: dict = {}
        if kind == "attack":
            text = data["amount"].strip()
            kwargs = {"amount": int(text)} if text.isdigit() else {"expression": text}
        elif kind == "collision":
            kwargs = {"speed_kmh": data["speed_kmh"], "weight_kg": data.get("weight_kg")}
        elif kind == "fall":
            kwargs = {"height_m": data["height_m"], "weight_kg": data.get("weight_kg"),
                      "difficulty": data["difficulty"], "dice_by_character": dice_of(data)}
        else:
            kwargs = {"turns": data["turns"]}
        return actions.apply_damage(self.campaign, data["characters"], kind, by=by, **kwargs)


def dice_of(data: dict) -> dict[int, int | None]:
    return {int(name.removeprefix("die_")): value for name, value in data.items() if name.startswith("die_")}


class ExposeForm(CampaignForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["characters"] = forms.ModelMultipleChoiceField(
            label=_("Personajes"), queryset=self.characters(), widget=forms.CheckboxSelectMultiple)
        self.fields["disease"] = forms.ModelChoiceField(
            label=_("Enfermedad"), queryset=Disease.objects.available_in(self.campaign))
        for character in self.rollers():
            self.fields[f"die_{character.pk}"] = die_field(
                _("1d12 de %(name)s (+ CON %(con)s)") % {"name": character.name, "con": character.constitution},
                engine.RESISTANCE_DIE)

    def perform(self, by) -> actions.Outcome:
        data = self.cleaned_data
        return actions.expose(self.campaign, data["characters"], data["disease"], by=by,
                              dice_by_character=dice_of(data))


class PatientForm(CampaignForm):
    """An action on one character, the patient, chosen by the card it was opened from."""

    def __init__(self, *args, patient: Character, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.patient = patient

    def healers(self):
        return self.characters().filter(heal_wounds__gte=1, died_at=None)


class TreatWoundsForm(PatientForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["healer"] = forms.ModelChoiceField(label=_("Sanador (Curar Heridas)"), queryset=self.healers())

    def perform(self, by) -> actions.Outcome:
        return actions.treat_wounds(self.campaign, self.patient, self.cleaned_data["healer"], by=by)


class TreatIllnessForm(PatientForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["illness"] = forms.ModelChoiceField(
            label=_("Enfermedad"), queryset=Illness.objects.filter(character=self.patient, cured_at=None,
                                                                   treated=False).select_related("disease"))
        self.fields["healer"] = forms.ModelChoiceField(
            label=_("Sanador (otro personaje con Curar Heridas)"), queryset=self.healers().exclude(pk=self.patient.pk))

    def perform(self, by) -> actions.Outcome:
        data = self.cleaned_data
        return actions.treat_illness(self.campaign, self.patient, data["illness"], data["healer"], by=by)


class MedicateForm(PatientForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["illness"] = forms.ModelChoiceField(
            label=_("Enfermedad"), queryset=Illness.objects.filter(character=self.patient, cured_at=None,
                                                                   medicated=False).select_related("disease"))

    def perform(self, by) -> actions.Outcome:
        return actions.medicate(self.campaign, self.patient, self.cleaned_data["illness"], by=by)


class ExertionForm(PatientForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["die"] = die_field(_("1d12 (+ CON %(con)s)") % {"con": self.patient.constitution},
                                       engine.EXERTION_DIE)

    def perform(self, by) -> actions.Outcome:
        return actions.exertion(self.campaign, self.patient, die=self.cleaned_data.get("die"), by=by)


# Presets of the clock control: (value, label, resting). Time in action is not rest; the long ones are.
PRESETS = [
    ("6", _("+1 turno"), False),
    ("60", _("+1 minuto"), False),
    ("3600", _("+1 hora"), False),
    ("28800", _("+8 horas de descanso"), True),
    ("86400", _("+1 día de descanso"), True),
    ("604800", _("+1 semana de descanso"), True),
]


class AdvanceForm(CampaignForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["preset"] = forms.ChoiceField(required=False, choices=[(v, label) for v, label, _r in PRESETS])
        self.fields["duration"] = forms.CharField(
            label=_("Otra duración"), required=False, max_length=100,
            help_text=_("Por ejemplo 90s, 3t (turnos), 8h, 1d12h, 2 semanas."))
        self.fields["resting"] = forms.ModelMultipleChoiceField(
            label=_("Descansan"), queryset=self.characters(), required=False, widget=forms.CheckboxSelectMultiple)

    def clean(self):
        data = super().clean()
        if data.get("preset"):
            data["seconds"] = int(data["preset"])
            data["rest"] = dict((v, r) for v, _label, r in PRESETS)[data["preset"]]
        elif data.get("duration"):
            try:
                data["seconds"] = parse_duration(data["duration"])
            except ValueError as error:
                self.add_error("duration", str(error))
            data["rest"] = True
        elif not self.errors:
            self.add_error("duration", _("Elige un botón o escribe una duración."))
        return data

    def perform(self, by) -> actions.Outcome:
        data = self.cleaned_data
        resting = data["resting"] if data["rest"] else []
        return actions.advance_clock(self.campaign, data["seconds"], resting=resting, by=by)
