import secrets

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class PartyView(models.TextChoices):
    """What the other players of a campaign see of a character (its own player and the GM always see it in full)."""

    EXACT = "exact", _("sus PG exactos")
    BAND = "band", _("una palabra: Ileso, Herido, Malherido, Grave, Moribundo o Muerto")
    HIDDEN = "hidden", _("nada")


class CampaignQuerySet(models.QuerySet["Campaign"]):
    def with_session_head(self) -> "CampaignQuerySet":
        """Each campaign with its latest game session's number (`latest_session`) and the open one's (`open_session`),
        in its own row: the GM's table shows both without a query of their own."""
        sessions = GameSession.objects.filter(campaign=models.OuterRef("pk")).order_by("-number").values("number")
        return self.annotate(
            latest_session=models.Subquery(sessions[:1]),
            open_session=models.Subquery(sessions.filter(ended__isnull=True)[:1]),
        )


class Campaign(models.Model):
    name = models.CharField(_("nombre"), max_length=100)
    gm = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="campaigns_run", verbose_name=_("narrador")
    )
    # Campaign time in whole seconds since the campaign began; only the GM moves it (rules.actions).
    clock = models.BigIntegerField(_("reloj de campaña (s)"), default=0)
    # Bumped by every action, so live clients can tell what they have seen.
    version = models.BigIntegerField(_("versión"), default=0)
    party_view = models.CharField(
        _("lo que cada jugador ve de los personajes de los demás"),
        max_length=10,
        choices=PartyView.choices,
        default=PartyView.BAND,
    )
    created = models.DateTimeField(_("creada"), auto_now_add=True)
    # Time that runs between sessions (campaigns.running_time; only rules.actions.running_time and a game session's
    # end write these): whether it runs, how much campaign time a real day carries, at what hour of which time zone
    # each day's tick falls, since when the next tick counts, and when it falls.
    runs = models.BooleanField(_("el tiempo corre entre sesiones"), default=False)
    run_rate = models.BigIntegerField(_("tiempo de campaña por día real (s)"), default=86400)
    run_hour = models.PositiveSmallIntegerField(_("hora del paso del tiempo"), default=6)
    run_zone = models.CharField(_("zona horaria"), max_length=64, default="Europe/Madrid")
    run_from = models.DateTimeField(_("el tiempo cuenta desde"), null=True, blank=True)
    run_next = models.DateTimeField(_("próximo paso del tiempo"), null=True, blank=True)

    objects = CampaignQuerySet.as_manager()

    class Meta:
        verbose_name = _("campaña")
        verbose_name_plural = _("campañas")
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(clock__gte=0), name="campaign_clock_not_negative"),
            models.CheckConstraint(condition=Q(version__gte=0), name="campaign_version_not_negative"),
            models.CheckConstraint(condition=Q(run_rate__gte=1), name="campaign_run_rate_positive"),
            models.CheckConstraint(condition=Q(run_hour__lte=23), name="campaign_run_hour_of_a_day"),
            models.CheckConstraint(
                condition=Q(runs=False) | Q(run_from__isnull=False, run_next__isnull=False),
                name="campaign_runs_counted",
            ),
        ]
        # The ticks due (rules.tasks): the campaigns whose time runs, by when their next tick falls.
        indexes = [models.Index(fields=["run_next"], condition=Q(runs=True), name="campaign_ticks_due")]

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    """What a member of a campaign is: a player, or a co-GM (the owner's powers at the table; the owner is
    Campaign.gm, who alone deletes, exports and names or removes co-GMs: campaigns.access)."""

    PLAYER = "player", _("jugador")
    GM = "gm", _("co-narrador")


class Membership(models.Model):
    """A player or a co-GM of a campaign (its owner is Campaign.gm). Made when someone claims an invitation."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(_("papel"), max_length=10, choices=Role.choices, default=Role.PLAYER)
    joined = models.DateTimeField(_("se unió"), auto_now_add=True)

    class Meta:
        verbose_name = _("jugador de la campaña")
        verbose_name_plural = _("jugadores de la campaña")
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="one_membership_per_user")]

    def __str__(self) -> str:
        return f"{self.user} @ {self.campaign}"


# What an invitation token can look like (token_urlsafe's alphabet): anything else in an /invite/ URL is a 404.
TOKEN_PATTERN = "[A-Za-z0-9_-]{1,64}"


def new_invitation_token() -> str:
    return secrets.token_urlsafe(24)


class InvitationQuerySet(models.QuerySet["Invitation"]):
    def pending(self) -> "InvitationQuerySet":
        """Links that can still hand over their character: neither claimed nor revoked (see Invitation.pending)."""
        return self.filter(claimed_by=None, revoked_at=None)

    def in_play(self) -> "InvitationQuerySet":
        """Links whose character is still in the campaign, and co-GM links (which hand over no character)."""
        return self.filter(Q(character=None) | Q(character__removed=False))


class Invitation(models.Model):
    """A link the GM hands to a player so that they can claim one character; or, with no character and the role
    "gm", a link the owner hands to someone to join as co-GM ("como co-narrador")."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    character = models.ForeignKey(
        "characters.Character", null=True, blank=True, on_delete=models.CASCADE, related_name="invitations"
    )
    role = models.CharField(_("papel"), max_length=10, choices=Role.choices, default=Role.PLAYER)
    token = models.CharField(max_length=64, unique=True, default=new_invitation_token, editable=False)
    created = models.DateTimeField(_("creada"), auto_now_add=True)
    claimed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    claimed_at = models.DateTimeField(_("reclamada"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("anulada"), null=True, blank=True)

    objects = InvitationQuerySet.as_manager()

    class Meta:
        verbose_name = _("invitación")
        verbose_name_plural = _("invitaciones")
        constraints = [
            # A player's link hands over a character; a co-GM's hands over none.
            models.CheckConstraint(
                condition=Q(role="player", character__isnull=False) | Q(role="gm", character__isnull=True),
                name="invitation_character_by_role",
            )
        ]

    def __str__(self) -> str:
        what = self.character if self.character_id is not None else Role.GM.label
        return f"{what} ({self.token[:6]}…)"

    @property
    def claimed(self) -> bool:
        return self.claimed_by_id is not None

    @property
    def pending(self) -> bool:
        """Still usable: neither claimed nor revoked. Only a pending link can hand over its character."""
        return self.claimed_by_id is None and self.revoked_at is None


class Signup(models.Model):
    """An account made through the sign-up page, by client address: what play.throttle counts."""

    address = models.CharField(max_length=64)
    at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("registro")
        verbose_name_plural = _("registros")
        indexes = [models.Index(fields=["address", "at"], name="signup_address_at")]

    def __str__(self) -> str:
        return f"{self.address} {self.at:%Y-%m-%d %H:%M}"


class Event(models.Model):
    """One GM action in the campaign log. Append-only: undo marks it undone and never deletes it.

    `before` and `after` hold the engine state of every affected character ({character id: state}, rules.mapping), so
    that undo restores exactly what was there, and the log can show what changed.
    """

    # Indexed with the id (Meta.indexes): a campaign's latest entries are the end of that index, however long its log.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="events", db_index=False)
    # What the entry records: a rules.events.EventKind (its payload, `details`, is typed there).
    action = models.CharField(_("acción"), max_length=30)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("quién"),
    )
    clock_before = models.BigIntegerField(_("reloj antes (s)"))
    clock_after = models.BigIntegerField(_("reloj después (s)"))
    created = models.DateTimeField(_("cuándo (hora real)"), auto_now_add=True)
    characters = ArrayField(models.BigIntegerField(), default=list, blank=True, verbose_name=_("personajes"))
    # The action's inputs and every roll with its parts (die, attribute or skill, each penalty, total, difficulty,
    # result), in a form the log templates can show.
    details = models.JSONField(default=dict, blank=True)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    undone = models.BooleanField(_("deshecho"), default=False)
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Who did it and who undid it, by username, when no account of this site is credited with it: an imported event
    # keeps the names its document gave (accounts do not travel: rules.backup), so that its export names them again.
    actor_name = models.CharField(max_length=150, blank=True, default="")
    undone_by_name = models.CharField(max_length=150, blank=True, default="")

    class Meta:
        verbose_name = _("evento")
        verbose_name_plural = _("registro de la campaña")
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["campaign", "id"], name="event_campaign_log"),
            GinIndex(fields=["characters"], name="event_characters_gin"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.action}"


class Visit(models.Model):
    """Where one account last saw one campaign (its player's page or the GM's table), for "Desde tu última visita".

    `seen` is the latest event the account's page was drawn with (or its live stream was open until); `since` is the
    event an undismissed panel counts from (None: no panel waits). Not game state: written through
    rules.actions.visits, never logged, never bumping the campaign's version. Not exported: accounts do not travel.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    seen = models.BigIntegerField(_("último evento visto"), default=0)
    since = models.BigIntegerField(_("novedades desde el evento"), null=True, blank=True)

    class Meta:
        verbose_name = _("visita")
        verbose_name_plural = _("visitas")
        constraints = [models.UniqueConstraint(fields=["user", "campaign"], name="one_visit_per_user_and_campaign")]

    def __str__(self) -> str:
        return f"{self.user} @ {self.campaign}: {self.seen}"


class GameSession(models.Model):
    """One evening of play: the GM starts it and ends it (rules.actions.game_sessions), each a log entry, so that the
    log can be read by session and each session has its recap (rules.stretches). At most one is open per campaign."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="game_sessions")
    number = models.PositiveIntegerField(_("número"))
    # The entries that started and ended it: the recap is what stands between them. Undoing the start deletes the
    # session; undoing the end opens it again.
    started = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+", verbose_name=_("empezada"))
    ended = models.ForeignKey(
        Event, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("terminada")
    )
    # When the GM shared its recap with the players; None while only the GM reads it.
    shared_at = models.DateTimeField(_("compartida"), null=True, blank=True)

    class Meta:
        verbose_name = _("sesión de juego")
        verbose_name_plural = _("sesiones de juego")
        ordering = ["campaign", "number"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "number"], name="one_session_per_number"),
            models.UniqueConstraint(
                fields=["campaign"], condition=Q(ended__isnull=True), name="one_open_session_per_campaign"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="session_number_from_one"),
        ]

    def __str__(self) -> str:
        return f"{self.campaign} #{self.number}"

    @property
    def open(self) -> bool:
        return self.ended_id is None

    @property
    def shared(self) -> bool:
        return self.shared_at is not None


class TokenScope(models.TextChoices):
    """What a personal access token may do through the API (play.api): read, or read and act."""

    READ = "read", _("leer")
    ACT = "act", _("leer y actuar")


class AccessToken(models.Model):
    """A personal access token for the API (play.api): it acts as its account, with exactly that account's rights
    (campaigns.access), only reading unless its scope says otherwise, at one campaign only if it names one, until it
    expires or is revoked. Only its digest is kept: the token itself is shown once, when it is made
    (rules.actions.tokens). Not game state: never logged, never in a campaign's export."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens")
    name = models.CharField(_("nombre"), max_length=100)
    digest = models.CharField(max_length=64, unique=True, editable=False)  # SHA-256 of the token, in hex
    prefix = models.CharField(_("empieza por"), max_length=12, editable=False)  # to tell tokens apart in the list
    scope = models.CharField(_("permiso"), max_length=10, choices=TokenScope.choices, default=TokenScope.READ)
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.CASCADE, related_name="+", verbose_name=_("solo la campaña")
    )
    expires = models.DateTimeField(_("caduca"), null=True, blank=True)
    created = models.DateTimeField(_("creado"), auto_now_add=True)
    last_used = models.DateTimeField(_("último uso"), null=True, blank=True)
    revoked = models.DateTimeField(_("anulado"), null=True, blank=True)

    class Meta:
        verbose_name = _("token de acceso")
        verbose_name_plural = _("tokens de acceso")
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.user} · {self.name} ({self.prefix}…)"
