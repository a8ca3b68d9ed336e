from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from campaigns.models import PartyView
from rules import engine

# docs/rules.md §§1 and 7.11, from the engine; forms and the database constraints both use them.
CON_RANGE = (engine.CON_MIN, engine.CON_MAX)
SKILL_RANGE = (engine.SKILL_MIN, engine.SKILL_MAX)
WEIGHT_RANGE = engine.LIMITS["weight_kg"]
# The numbers of a sheet and their ranges, for every check of them: the actions, an import, the constraints below.
SHEET_RANGES: dict[str, tuple[int, int]] = {
    "constitution": CON_RANGE,
    "jump": SKILL_RANGE,
    "heal_wounds": SKILL_RANGE,
    "weight_kg": WEIGHT_RANGE,
}


def bounded(low: int, high: int) -> list:
    return [MinValueValidator(low), MaxValueValidator(high)]


class PresentManager(models.Manager["Character"]):
    """The characters still in play: a removed one stays in the database (its history and an undo need it)."""

    def get_queryset(self) -> models.QuerySet["Character"]:
        return super().get_queryset().filter(removed=False)


class Character(models.Model):
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="characters", verbose_name=_("campaña")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="characters",
        verbose_name=_("jugador"),
        help_text=_("Vacío para un personaje del narrador (PNJ)."),
    )
    name = models.CharField(_("nombre"), max_length=100)
    constitution = models.PositiveSmallIntegerField(_("Constitución (CON)"), validators=bounded(*CON_RANGE))
    jump = models.PositiveSmallIntegerField(_("Saltar"), default=0, validators=bounded(*SKILL_RANGE))
    heal_wounds = models.PositiveSmallIntegerField(_("Curar Heridas"), default=0, validators=bounded(*SKILL_RANGE))
    weight_kg = models.PositiveSmallIntegerField(_("peso (kg)"), default=70, validators=bounded(*WEIGHT_RANGE))
    notes = models.TextField(_("notas"), blank=True, max_length=5000)
    # What the other players see of it; empty: what the campaign says (Campaign.party_view). An NPC kept secret.
    party_view = models.CharField(
        _("lo que ven los demás jugadores"),
        max_length=10,
        blank=True,
        default="",
        choices=[("", _("lo que diga la campaña")), *PartyView.choices],
    )
    # Whether it rests while time runs between sessions (campaigns.running_time): not when travelling or imprisoned.
    rests_between_sessions = models.BooleanField(_("descansa entre sesiones"), default=True)
    # The engine's state, kept for fast pages; only rules.actions writes these (a test checks them against the engine).
    pg = models.PositiveIntegerField(_("PG actuales"), default=0, editable=False)
    died_at = models.BigIntegerField(_("murió en (s de campaña)"), null=True, blank=True, editable=False)
    recovery_progress = models.JSONField(default=dict, blank=True, editable=False)  # {kind: seconds toward next PG}
    protection = models.JSONField(default=list, blank=True, editable=False)  # [[category, campaign day], …]
    created = models.DateTimeField(_("creado"), auto_now_add=True)
    # Removing a character keeps its row, wounds and log (undoable like every action, docs/rules.md §7.10).
    removed = models.BooleanField(_("retirado de la campaña"), default=False, editable=False)

    objects = PresentManager()
    everyone = models.Manager()  # noqa: DJ012 — removed ones too: for undo and for the names in the log

    class Meta:
        base_manager_name = "everyone"
        verbose_name = _("personaje")
        verbose_name_plural = _("personajes")
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(constitution__gte=CON_RANGE[0], constitution__lte=CON_RANGE[1]),
                name="character_constitution_range",
            ),
            models.CheckConstraint(
                condition=Q(jump__gte=SKILL_RANGE[0], jump__lte=SKILL_RANGE[1]), name="character_jump_range"
            ),
            models.CheckConstraint(
                condition=Q(heal_wounds__gte=SKILL_RANGE[0], heal_wounds__lte=SKILL_RANGE[1]),
                name="character_heal_wounds_range",
            ),
            models.CheckConstraint(
                condition=Q(weight_kg__gte=WEIGHT_RANGE[0], weight_kg__lte=WEIGHT_RANGE[1]),
                name="character_weight_range",
            ),
            models.CheckConstraint(condition=Q(pg__lte=models.F("constitution") * 10), name="character_pg_at_most_max"),
            # docs/rules.md §4: dead means PG 0, always.
            models.CheckConstraint(condition=Q(died_at__isnull=True) | Q(pg=0), name="character_dead_at_zero_pg"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._state.adding and not self.pg:
            self.pg = self.max_pg  # a new character is unhurt; from then on only rules.actions changes pg
        super().save(*args, **kwargs)

    @property
    def max_pg(self) -> int:
        return engine.max_pg(self.constitution)

    @property
    def dead(self) -> bool:
        """docs/rules.md §4: dead exactly when PG is 0 or a death has been recorded."""
        return self.died_at is not None or self.pg == 0


class NpcTemplate(models.Model):
    """A sheet a campaign keeps for its quick NPCs ("Guardia", "Lobo"): the "Añadir varios" form's values under their
    name pattern, to fill that form again. Only rules.actions.npcs writes it (logged, undoable)."""

    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, related_name="npc_templates", verbose_name=_("campaña")
    )
    name = models.CharField(_("nombre"), max_length=100)
    count = models.PositiveSmallIntegerField(_("cuántos"), default=1)
    constitution = models.PositiveSmallIntegerField(_("Constitución (CON)"), validators=bounded(*CON_RANGE))
    jump = models.PositiveSmallIntegerField(_("Saltar"), default=0, validators=bounded(*SKILL_RANGE))
    heal_wounds = models.PositiveSmallIntegerField(_("Curar Heridas"), default=0, validators=bounded(*SKILL_RANGE))
    weight_kg = models.PositiveSmallIntegerField(_("peso (kg)"), default=70, validators=bounded(*WEIGHT_RANGE))
    party_view = models.CharField(_("lo que ven los demás jugadores"), max_length=10, blank=True, default="")
    notes = models.TextField(_("notas"), blank=True, max_length=5000)

    class Meta:
        verbose_name = _("plantilla de PNJ")
        verbose_name_plural = _("plantillas de PNJ")
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "name"], name="npc_template_name_per_campaign"),
            models.CheckConstraint(
                condition=Q(constitution__gte=CON_RANGE[0], constitution__lte=CON_RANGE[1]),
                name="npc_template_constitution_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name
