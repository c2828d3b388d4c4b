"""The registry and the results: clubs, players, secretaries, matches, sides, submissions.

Invariants live in database constraints as well as in the services:
- a club's external match id is unique per club and revision; a player appears once per
  match; a match has 2 to 9 sides (checked by the service: a count across rows);
- nothing counted is edited in place: a correction is a new revision of the match (the old
  one is voided from the new one's counting month on), a void is an event with who, when,
  why and the first list it affects;
- ``SideMember`` repeats the match's month, counting month, category base and the side's
  score so that the ranking loader reads one table (``COPY`` of one row per result).
Months are stored as ``DateField`` holding the first day of the month.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .audit import AppendOnlyRecord, AuditRecord
from .disciplines import DISCIPLINES


class Discipline(models.TextChoices):
    """The disciplines' codes as model choices; their words live in :mod:`matches.disciplines`."""

    FIDO = "fido", DISCIPLINES["fido"].label
    ALLFIVES = "allfives", DISCIPLINES["allfives"].label
    AUSTRIAN = "austrian", DISCIPLINES["austrian"].label


class Category(models.TextChoices):
    CLUB = "club", _("Club")
    LEAGUE = "league", _("League")
    NATIONAL = "national", _("National")
    INTERNATIONAL = "international", _("International")
    WORLD = "world", _("World")


# The base value B of a category (SPEC.md section 2).
CATEGORY_BASE: dict[str, int] = {
    Category.CLUB: 10,
    Category.LEAGUE: 20,
    Category.NATIONAL: 40,
    Category.INTERNATIONAL: 80,
    Category.WORLD: 160,
}

MIN_SIDES = 2
MAX_SIDES = 9

club_id_validator = RegexValidator(
    r"^CLUB-[A-Za-z0-9][A-Za-z0-9_-]{0,40}$", "a club id looks like CLUB-7 or CLUB-BER"
)
player_id_validator = RegexValidator(
    r"^P-[A-Za-z0-9][A-Za-z0-9_-]{0,40}$", "a player id looks like P-000123"
)
country_validator = RegexValidator(r"^[A-Z]{2}$", "a country is an ISO 3166-1 alpha-2 code")


class Club(models.Model):
    club_id = models.CharField(max_length=48, unique=True, validators=[club_id_validator])
    name = models.CharField(max_length=200)
    country = models.CharField(max_length=2, validators=[country_validator])
    city = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["club_id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(country__regex=r"^[A-Z]{2}$"), name="club_country_iso2"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.club_id} {self.name}"


class Player(models.Model):
    player_id = models.CharField(max_length=48, unique=True, validators=[player_id_validator])
    name = models.CharField(max_length=200)
    country = models.CharField(max_length=2, validators=[country_validator])
    club = models.ForeignKey(
        Club, null=True, blank=True, on_delete=models.PROTECT, related_name="members"
    )
    # Set when an admin merged this record into another one: the id stays resolvable.
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged_from"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["player_id"]
        indexes = [models.Index(fields=["name"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(country__regex=r"^[A-Z]{2}$"), name="player_country_iso2"
            ),
            models.CheckConstraint(
                condition=~Q(merged_into=models.F("id")), name="player_not_merged_into_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.name}"


class Secretary(models.Model):
    """The secretary role: a user who submits results for a club."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="secretary_roles"
    )
    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="secretaries")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("secretary")
        verbose_name_plural = _("secretaries")  # not Django's default "secretarys"
        constraints = [
            models.UniqueConstraint(fields=["user", "club"], name="secretary_unique_user_club")
        ]

    def __str__(self) -> str:
        return f"{self.user} @ {self.club.club_id}"


class Channel(models.TextChoices):
    WEB = "web", _("Web form")
    CSV = "csv", _("CSV upload")
    API = "api", _("REST API")
    IMPORT = "import", _("Bulk import")


class Submission(AuditRecord):
    """One act of submitting: who, when (server clock), by which path, for which club."""

    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="submissions")
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    received_at = models.DateTimeField(db_index=True)
    channel = models.CharField(max_length=8, choices=Channel.choices)

    class Meta:
        ordering = ["-received_at", "-id"]

    def __str__(self) -> str:
        return f"submission {self.pk} by {self.club.club_id} at {self.received_at:%Y-%m-%d %H:%M}"


class Status(models.TextChoices):
    ON_TIME = "on_time", _("On time")
    LATE = "late", _("Late")


class Match(AppendOnlyRecord):
    """One game table's result, as submitted; a correction is a new revision."""

    # No index of its own: (club, external_id, revision) and (club, -received_at) lead with it.
    club = models.ForeignKey(Club, on_delete=models.PROTECT, related_name="matches", db_index=False)
    external_id = models.CharField(max_length=120)
    revision = models.PositiveSmallIntegerField(default=1)
    date_played = models.DateField()
    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    category = models.CharField(max_length=16, choices=Category.choices)
    submission = models.ForeignKey(Submission, on_delete=models.PROTECT, related_name="matches")
    received_at = models.DateTimeField()
    status = models.CharField(max_length=8, choices=Status.choices)
    counting_month = models.DateField(help_text="first day of the month whose list it enters")
    # Optional game records (RULES.md section 2), replayed and checked against the scores.
    records = models.JSONField(null=True, blank=True)
    replaces = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="replaced_by"
    )
    # Void: the match counts in no list from void_effective_month on.
    voided_at = models.DateTimeField(null=True, blank=True)
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,  # the partial index match_voided_by: voided matches only
    )
    void_reason = models.TextField(blank=True)
    void_effective_month = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["-date_played", "-id"]
        verbose_name_plural = "matches"
        indexes = [
            models.Index(fields=["discipline", "counting_month"]),
            models.Index(fields=["club", "-received_at"]),
            # A club's page: its latest matches and its punctuality by day played, without
            # reading every match of the club (migration 0007).
            models.Index(fields=["club", "-date_played", "-id"], name="match_club_played"),
            models.Index(
                fields=["voided_by"],
                condition=Q(voided_by__isnull=False),
                name="match_voided_by",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["club", "external_id", "revision"], name="match_unique_revision"
            ),
            models.CheckConstraint(
                condition=Q(counting_month__day=1), name="match_counting_month_first_day"
            ),
            models.CheckConstraint(
                condition=Q(voided_at__isnull=True, void_effective_month__isnull=True)
                | Q(voided_at__isnull=False, void_effective_month__isnull=False),
                name="match_void_is_complete",
            ),
            models.CheckConstraint(condition=Q(revision__gte=1), name="match_revision_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.label}#{self.revision}"

    @property
    def label(self) -> str:
        """The match as people name it: its id, with the club in front only when the id
        does not already start with it (ids such as ``CLUB-7/2026-03-14/t2`` do)."""
        return match_label(self.club.club_id, self.external_id)

    @property
    def is_voided(self) -> bool:
        return self.voided_at is not None


def match_label(club_id: str, external_id: str) -> str:
    """``CLUB-7/2026-03-14/t2`` for an id that names its club, ``CLUB-7/t2`` otherwise."""
    if external_id.startswith(f"{club_id}/"):
        return external_id
    return f"{club_id}/{external_id}"


class Side(AppendOnlyRecord):
    # No index of its own: side_unique_position (match, position) leads with it.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="sides", db_index=False)
    position = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(MAX_SIDES)]
    )
    score = models.IntegerField()

    class Meta:
        ordering = ["match", "position"]
        constraints = [
            models.UniqueConstraint(fields=["match", "position"], name="side_unique_position"),
            models.CheckConstraint(
                condition=Q(position__gte=1) & Q(position__lte=MAX_SIDES), name="side_position_1_9"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match} side {self.position}: {self.score}"


class SideMember(AppendOnlyRecord):
    """A player on a side: one result. Repeats the match's fields the ranking loader needs."""

    # match and player have no index of their own: member_once_per_match (match, player) and
    # member_player (player, discipline, counting_month) lead with them. Every index is
    # written four times or more per submitted table.
    match = models.ForeignKey(
        Match, on_delete=models.CASCADE, related_name="members", db_index=False
    )
    side = models.ForeignKey(Side, on_delete=models.CASCADE, related_name="members")
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, related_name="results", db_index=False
    )
    # Copies (never edited independently; a correction is a new match revision):
    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    month_played = models.DateField()
    counting_month = models.DateField()
    base = models.PositiveSmallIntegerField()
    side_position = models.PositiveSmallIntegerField()
    score = models.IntegerField()
    void_effective_month = models.DateField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["match", "player"], name="member_once_per_match"),
        ]
        indexes = [
            models.Index(fields=["discipline", "counting_month"], name="member_window"),
            models.Index(fields=["player", "discipline", "counting_month"], name="member_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player.player_id} in {self.match}"


class MatchEvent(AuditRecord):
    """The audit trail: every submission, correction, void and merge touching a match."""

    class Kind(models.TextChoices):
        SUBMITTED = "submitted"
        CORRECTED = "corrected"
        VOIDED = "voided"
        MERGED = "merged"
        UNMERGED = "unmerged"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    at = models.DateTimeField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    reason = models.TextField(blank=True)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.kind} {self.match} at {self.at:%Y-%m-%d %H:%M}"


class PlayerMerge(AuditRecord):
    """Audit of an admin merge: every result of ``source`` moved to ``target``."""

    source = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_out")
    target = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="merges_in")
    merged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    merged_at = models.DateTimeField()
    reason = models.TextField()
    results_moved = models.PositiveIntegerField()
    match_ids = models.JSONField(default=list)
    # Records merged into ``source`` earlier, redirected to ``target`` by this merge (their
    # primary keys): an undo points them back.
    redirected_ids = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-merged_at"]

    def __str__(self) -> str:
        return f"{self.source.player_id} -> {self.target.player_id}"


class PlayerMergeUndo(AuditRecord):
    """Audit of the undo of a merge (within the month it was made): a new event, the merge
    row stays as it was."""

    merge = models.OneToOneField(PlayerMerge, on_delete=models.PROTECT, related_name="undo")
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    undone_at = models.DateTimeField()
    reason = models.TextField()
    results_moved = models.PositiveIntegerField()

    class Meta:
        ordering = ["-undone_at"]

    def __str__(self) -> str:
        return f"undo of {self.merge}"


class PlayerDetailsChange(AuditRecord):
    """A change of a player's name or country (the fields a published list's download
    shows): who, when, why, and both values. The player row holds the current values; a
    list published before ``changed_at`` shows ``name_before`` / ``country_before`` of the
    player's first change after it (:func:`rankings.selectors.list_export.published_names`),
    so its download stays the bytes its seal hashed. Written by
    :mod:`matches.services.players` only."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="details_changes")
    name_before = models.CharField(max_length=200)
    country_before = models.CharField(max_length=2)
    name_after = models.CharField(max_length=200)
    country_after = models.CharField(max_length=2)
    changed_at = models.DateTimeField()
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )
    reason = models.TextField()

    class Meta:
        ordering = ["-changed_at", "-id"]
        indexes = [models.Index(fields=["changed_at"], name="player_change_at")]

    def __str__(self) -> str:
        return f"{self.player.player_id}: {self.name_before} -> {self.name_after}"


class ClosedMonth(AuditRecord):
    """A frozen month of a discipline: no result ever enters its list afterwards."""

    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    month = models.DateField(help_text="first day of the closed month")
    closed_at = models.DateTimeField()
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT
    )

    class Meta:
        ordering = ["discipline", "-month"]
        constraints = [
            models.UniqueConstraint(fields=["discipline", "month"], name="closed_month_unique"),
            models.CheckConstraint(condition=Q(month__day=1), name="closed_month_first_day"),
        ]

    def __str__(self) -> str:
        return f"{self.discipline} {self.month:%Y-%m} closed"


class IdempotencyRecord(models.Model):
    """The first response to a POST carrying an ``Idempotency-Key``, replayed on retries."""

    # No index of its own: idempotency_unique_user_key (user, key) leads with it.
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, db_index=False)
    key = models.CharField(max_length=200)
    request_hash = models.CharField(max_length=64)
    status_code = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_unique_user_key")
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.key}"


class ApiKey(models.Model):
    """An API token, stored as the SHA-256 digest of its key only (the key is shown once,
    when issued: :mod:`matches.services.tokens`), with an expiry and a revocation time."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys"
    )
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(
        max_length=8, help_text="the key's first characters, to tell keys apart"
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("API token")

    def __str__(self) -> str:
        return f"{self.user} {self.prefix}…"
