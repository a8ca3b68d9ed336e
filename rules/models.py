"""What the rules engine's state is stored as: diseases, and each character's wounds and illnesses.

Rows mirror `rules.engine.Wound` / `Illness` one to one and keep their order (by id): the engine only ever appends,
so `rules.mapping` matches rows to engine objects by position. Only `rules.actions` writes these rows.
"""

from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from rules import engine
from rules.signs import minus

if TYPE_CHECKING:
    from campaigns.models import Campaign


class WoundKind(models.TextChoices):
    """docs/rules.md §2: every loss of PG is a wound of one of these kinds (the engine's KINDS)."""

    ATTACK = "attack", _("Ataque físico directo")
    COLLISION = "collision", _("Colisión")
    FALL = "fall", _("Caída")
    DROWNING = "drowning", _("Asfixia por inmersión")
    GAS = "gas", _("Gases nocivos")
    ILLNESS = "illness", _("Enfermedad")
    EXERTION = "exertion", _("Esfuerzo")


# The kinds a GM inflicts as damage; illness and exertion wounds come from the rules themselves.
DAMAGE_KINDS = (WoundKind.ATTACK, WoundKind.COLLISION, WoundKind.FALL, WoundKind.DROWNING, WoundKind.GAS)


class Category(models.TextChoices):
    COMMON = "common", _("común")
    SERIOUS = "serious", _("grave")


# docs/rules.md §5: name, category, penalty, PG per week. Added by migration rules.0002; `ensure_builtin` puts
# them back where a database was emptied without migrating (e.g. after a transactional test's flush). The names are
# stored, compared (name clashes) and exported as written here, in Spanish; `disease_name` shows them translated.
BUILTIN_DISEASES = [
    (gettext_noop("Resfrío común"), "common", -1, None),
    (gettext_noop("Fiebre"), "common", -2, None),
    (gettext_noop("Gripe"), "common", -2, None),
    (gettext_noop("Peste"), "serious", -2, 1),
    (gettext_noop("Tuberculosis"), "serious", -2, 2),
]
BUILTIN_NAMES = frozenset(name for name, *_numbers in BUILTIN_DISEASES)


def disease_name(name: str) -> str:
    """A disease's name as the reader says it: a built-in one in the page's language, any other as its GM wrote it.
    Only for showing: what is stored, logged and compared stays the name as written."""
    return gettext(name) if name in BUILTIN_NAMES else name


class DiseaseQuerySet(models.QuerySet["Disease"]):
    def ensure_builtin(self) -> None:
        for name, category, penalty, pg_per_week in BUILTIN_DISEASES:
            self.get_or_create(
                name=name,
                campaign=None,
                builtin=True,
                defaults={"category": category, "penalty": penalty, "pg_per_week": pg_per_week},
            )

    def available_in(self, campaign: "Campaign") -> "DiseaseQuerySet":
        """Built-in diseases and this campaign's own, not retired."""
        return self.filter(Q(campaign=None) | Q(campaign=campaign), retired=False)


# A disease's numbers (docs/rules.md §5), narrower than the database columns so that a typo is a clear message.
PENALTY_MIN = -20
PG_PER_WEEK_MAX = 100


def disease_errors(category: str, penalty: int | None, pg_per_week: int | None) -> dict[str, str]:
    """What is wrong with a disease's numbers, by field (docs/rules.md §5); empty when nothing is."""
    errors: dict[str, object] = {}
    if penalty is not None and not PENALTY_MIN <= penalty <= 0:
        errors["penalty"] = _("La penalización debe estar entre %(low)s y 0.") % {"low": minus(PENALTY_MIN)}
    if category == Category.SERIOUS and (pg_per_week is None or not 1 <= pg_per_week <= PG_PER_WEEK_MAX):
        errors["pg_per_week"] = _("Una enfermedad grave pierde entre 1 y %(max)s PG por semana.") % {
            "max": PG_PER_WEEK_MAX
        }
    if category == Category.COMMON and pg_per_week is not None:
        errors["pg_per_week"] = _("Una enfermedad común no hace perder PG: deja este campo vacío.")
    if category not in Category.values:
        errors["category"] = _("Elige común o grave.")
    return {field: str(message) for field, message in errors.items()}


class Disease(models.Model):
    name = models.CharField(_("nombre"), max_length=80)
    category = models.CharField(_("categoría"), max_length=10, choices=Category.choices)
    penalty = models.SmallIntegerField(_("penalización a todas las tiradas"), help_text=_("Un número entero ≤ 0."))
    pg_per_week = models.PositiveSmallIntegerField(
        _("PG perdidos por semana"), null=True, blank=True, help_text=_("Solo enfermedades graves: un número ≥ 1.")
    )
    campaign = models.ForeignKey(
        "campaigns.Campaign",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="diseases",
        verbose_name=_("campaña"),
        help_text=_("Vacío: disponible en todas las campañas."),
    )
    builtin = models.BooleanField(_("del reglamento"), default=False, editable=False)
    retired = models.BooleanField(_("retirada"), default=False, help_text=_("Ya no se puede contraer."))

    objects = DiseaseQuerySet.as_manager()

    class Meta:
        verbose_name = _("enfermedad")
        verbose_name_plural = _("enfermedades")
        ordering = ["category", "name"]
        constraints = [
            models.CheckConstraint(condition=Q(penalty__lte=0), name="disease_penalty_not_positive"),
            models.CheckConstraint(
                condition=Q(category="common", pg_per_week=None)
                | Q(category="serious", pg_per_week__isnull=False, pg_per_week__gte=1),
                name="disease_weekly_loss_matches_category",
            ),
        ]

    def __str__(self) -> str:
        return self.shown_name

    @property
    def shown_name(self) -> str:
        return disease_name(self.name)

    def clean(self) -> None:
        errors = disease_errors(self.category, self.penalty, self.pg_per_week)
        if errors:
            raise ValidationError(errors)

    def as_illness(self) -> engine.Illness:
        return engine.Illness(
            self.category, self.penalty, self.pg_per_week or 0, name=self.name, key=f"disease:{self.pk}"
        )


class Wound(models.Model):
    """One wound, or `times` equal wounds inflicted `every` seconds apart from `inflicted_at` on (a serious illness's
    weekly losses): rules.mapping stores a year of plague as one row that grows, not 52."""

    character = models.ForeignKey("characters.Character", on_delete=models.CASCADE, related_name="wounds")
    kind = models.CharField(_("tipo"), max_length=10, choices=WoundKind.choices)
    amount = models.PositiveIntegerField(_("PG perdidos"))
    remaining = models.PositiveIntegerField(_("PG por recuperar"))
    treated = models.BooleanField(_("tratada con Curar Heridas"), default=False)
    inflicted_at = models.BigIntegerField(_("momento (s de campaña)"))
    # For kind "illness": the engine's identity of the illness that caused it ("disease:<id>").
    illness_key = models.CharField(max_length=40, blank=True, default="")
    times = models.PositiveIntegerField(_("veces"), default=1)
    every = models.BigIntegerField(_("cada (s de campaña)"), default=0)

    class Meta:
        verbose_name = _("herida")
        verbose_name_plural = _("heridas")
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(remaining__lte=models.F("amount")), name="wound_remaining_at_most_amount"
            ),
            models.CheckConstraint(condition=Q(times__gte=1, every__gte=0), name="wound_times_every"),
        ]

    def __str__(self) -> str:
        text = f"{self.get_kind_display()} −{self.amount}"
        return text if self.times == 1 else f"{text} ×{self.times}"


class Illness(models.Model):
    """One episode of a disease. The disease's numbers are copied in, so that editing it later rewrites no history."""

    character = models.ForeignKey("characters.Character", on_delete=models.CASCADE, related_name="illnesses")
    disease = models.ForeignKey(Disease, on_delete=models.PROTECT, related_name="illnesses")
    category = models.CharField(max_length=10, choices=Category.choices)
    penalty = models.SmallIntegerField()
    pg_per_week = models.PositiveSmallIntegerField(default=0)
    since = models.BigIntegerField(_("enfermo desde (s de campaña)"))
    treated = models.BooleanField(_("tratada por otro personaje"), default=False)
    medicated = models.BooleanField(_("con medicamentos"), default=False)
    cured_at = models.BigIntegerField(_("curada en (s de campaña)"), null=True, blank=True)
    weeks_charged = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = _("enfermedad de un personaje")
        verbose_name_plural = _("enfermedades de los personajes")
        ordering = ["id"]

    def __str__(self) -> str:
        return str(self.disease)


class CheckKind(models.TextChoices):
    """The checks a player rolls at the table and the GM can call for (docs/rules.md §§2, 4 and 5)."""

    FALL = "fall", _("Tirada de caída")
    RESISTANCE = "resistance", _("Tirada de resistencia")
    EXERTION = "exertion", _("Tirada de esfuerzo")


class CallStatus(models.TextChoices):
    PENDING = "pending", _("pendiente")
    ANSWERED = "answered", _("tirada")
    CANCELLED = "cancelled", _("anulada")


class CalledCheck(models.Model):
    """A check the GM called for one character, for its player to roll on their phone (or the GM, or the server). Its
    answer runs the action it belongs to (a fall, an exposure, an exertion) with that die, as if the GM had typed it.
    One call for several characters is one row each, sharing the event that called them."""

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="called_checks")
    character = models.ForeignKey("characters.Character", on_delete=models.CASCADE, related_name="called_checks")
    kind = models.CharField(_("tirada"), max_length=12, choices=CheckKind.choices)
    # A fall's height, weight (empty: the sheet's) and difficulty; an exposure's disease.
    height_m = models.PositiveIntegerField(_("altura (m)"), null=True, blank=True)
    weight_kg = models.PositiveIntegerField(_("peso (kg)"), null=True, blank=True)
    difficulty = models.PositiveIntegerField(_("dificultad"), null=True, blank=True)
    disease = models.ForeignKey(Disease, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    called = models.ForeignKey("campaigns.Event", on_delete=models.CASCADE, related_name="calls")
    status = models.CharField(_("estado"), max_length=10, choices=CallStatus.choices, default=CallStatus.PENDING)
    # The event that answered it (the fall, the exposure, the exertion) or cancelled it.
    closed = models.ForeignKey("campaigns.Event", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        verbose_name = _("tirada pedida")
        verbose_name_plural = _("tiradas pedidas")
        ordering = ["id"]
        indexes = [models.Index(fields=["campaign", "status"], name="called_check_campaign_status")]
        constraints = [
            models.CheckConstraint(
                condition=~Q(kind="fall") | Q(height_m__isnull=False, difficulty__isnull=False),
                name="called_fall_has_height",
            ),
            models.CheckConstraint(
                condition=~Q(kind="resistance") | Q(disease__isnull=False), name="called_resistance_has_disease"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.character}"
