"""Ranking lists, their entries, the pointer to the current list, and the ranking job's runs.

Invariants, kept by constraints as well as by :mod:`rankings.services`:
- at most one PUBLISHED list per (discipline, month) (a partial unique constraint): the
  latest version of the month's list; the versions an erratum replaced are SUPERSEDED.
  Other lists of the same month are attempts (``computing``: a job wrote or is writing
  it; ``failed``: it died) and each has its own ``version`` (the attempt's number);
- ``edition`` is the public version of a month's list (v1 the close, v2 the first
  erratum, ...), unique per month, set at publication (migration 0010, now in
  0001_squashed_0011);
- a published or superseded list and its entries never change (the services refuse; on
  PostgreSQL a trigger refuses UPDATE, DELETE and INSERT on them, see the migration
  0001_squashed_0011, formerly 0002, 0004 and 0010); the one change allowed is the status
  published -> superseded, nothing else in the row;
- one :class:`CurrentList` row per discipline points at the list readers see: publishing
  flips it in the same transaction that marks the list published, so a reader sees the
  old list or the new one, never a mix;
- lists, entries and close runs are audit records (:mod:`matches.audit`): saved only by the
  services, read-only in the admin;
- an erratum (v2, v3, ...) is recorded as an :class:`Erratum` (who, when, why) before its
  close runs; the list it publishes points at it (``erratum``) and records the results it
  was computed from as "the events up to" two sequence numbers (``as_of_match``,
  ``as_of_event``: the highest match and match-event ids visible under the discipline's
  lock when the erratum read the results), so that ``verify_list`` can read them again as
  they stood (docs/verification.md);
- a published or superseded list may have one :class:`ListPack`, its players and cents as
  packed arrays, written in the transaction that publishes it (or by ``pack_lists``),
  equal to its entries and, like them, never changed (migration 0016);
- FLADUB is stored in integer cents (``fladub_cents``: 917 is 9.17), exact and cheap to
  ``COPY``; :attr:`RankingEntry.fladub` gives the ``Decimal``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Protocol

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact
from django.utils.translation import gettext_lazy as _

from matches.audit import AuditRecord
from matches.models import Discipline, Player


class _Figures(Protocol):
    fladub_cents: int
    previous_rank: int | None


class EntryFigures:
    """What an entry's stored figures mean, for the model and for the read side's rows:
    FLADUB from its integer cents, and whether the player is new to the list."""

    @property
    def fladub(self: _Figures) -> Decimal:
        return Decimal(self.fladub_cents) / 100

    @property
    def is_new(self: _Figures) -> bool:
        return self.previous_rank is None


class RankingList(AuditRecord):
    """L(month) of one discipline, or an attempt at it."""

    class Status(models.TextChoices):
        COMPUTING = "computing", _("Computing")
        PUBLISHED = "published", _("Published")
        FAILED = "failed", _("Failed")
        # The list the open month would publish if it closed now (rankings.services.projection):
        # never published, never current, never in the archive or the feeds.
        PROJECTED = "projected", _("Projected")
        # A published list an erratum replaced: still immutable, still at its own URL.
        SUPERSEDED = "superseded", _("Superseded")

    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    month = models.DateField(help_text="first day of the month of the list")
    # The attempt's number (every close run of the month writes a new attempt).
    version = models.PositiveIntegerField(default=1)
    # The public version of the month's list, set at publication: 1 for the close of the
    # month, 2 for its first erratum, ... (null on attempts that were never published).
    edition = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.COMPUTING)
    entry_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    published_at = models.DateTimeField(null=True, blank=True)
    # The seal (rankings.seal): what anyone can check the list against; written by the
    # close before the publication, null on lists published before seals existed. Nullable
    # without default so that SQLite adds the columns in place: rebuilding the table would
    # drop the triggers of migration 0002 (now in 0001_squashed_0011).
    content_sha256 = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    inputs_sha256 = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    inputs_count = models.PositiveBigIntegerField(null=True, blank=True)
    fladub_version = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    code_version = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    # An erratum's list (null for the close of the month): the request it answers, and the
    # results it read, as the events up to these sequence numbers (rankings.errata).
    # Nullable without default and without a constraint, so that SQLite adds the columns
    # in place (a rebuilt table would lose the triggers).
    erratum = models.ForeignKey(
        "Erratum",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="lists",
        db_constraint=False,
        db_index=False,
    )
    as_of_match = models.PositiveBigIntegerField(null=True, blank=True)
    as_of_event = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["discipline", "-month", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["discipline", "month"],
                condition=Q(status="published"),
                name="ranking_list_one_published_per_month",
            ),
            models.UniqueConstraint(
                fields=["discipline", "month", "version"], name="ranking_list_unique_version"
            ),
            models.UniqueConstraint(
                fields=["discipline", "month", "edition"],
                condition=Q(edition__isnull=False),
                name="ranking_list_unique_edition",
            ),
            models.CheckConstraint(condition=Q(month__day=1), name="ranking_list_first_day"),
            models.CheckConstraint(
                condition=Q(status="published", published_at__isnull=False)
                | ~Q(status="published"),
                name="ranking_list_published_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.discipline} {self.month:%Y-%m} v{self.version} ({self.status})"

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED

    @property
    def is_projected(self) -> bool:
        return self.status == self.Status.PROJECTED


class RankingEntry(EntryFigures, AuditRecord):
    """One row of a list: a player's rank and FLADUB in L(month)."""

    # No per-row foreign-key triggers: a list is a million rows written by one COPY, and
    # PostgreSQL would check each row on its own (about 9 s). The statement trigger of
    # migration 0004 (now in 0001_squashed_0011) checks the whole COPY with one anti-join instead.
    ranking_list = models.ForeignKey(
        RankingList,
        on_delete=models.CASCADE,
        related_name="entries",
        db_index=False,
        db_constraint=False,
    )
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        related_name="ranking_entries",
        db_index=False,
        db_constraint=False,
    )
    rank = models.PositiveIntegerField()
    fladub_cents = models.PositiveIntegerField()
    results_counted = models.PositiveIntegerField()
    previous_rank = models.PositiveIntegerField(null=True, blank=True)
    # previous_rank - rank: positive = moved up; null for a player new to the list.
    movement = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["ranking_list", "rank", "player"]
        verbose_name_plural = "ranking entries"
        # A list in list order is read through ``entry_list_order`` (ranking_list, rank, id)
        # INCLUDE (player_id), migration 0003 (now in 0001_squashed_0011). Every index here
        # costs the close a pass of a million inserts: this set is the smallest that serves
        # every read (0006).
        constraints = [
            # List first, so that a close's inserts stay in one compact region of the index
            # however many lists there are; on PostgreSQL it INCLUDEs (rank, id), so a
            # player's place in a list, or in each of their lists, is an index-only probe.
            models.UniqueConstraint(fields=["ranking_list", "player"], name="entry_once_per_list"),
            models.CheckConstraint(condition=Q(rank__gte=1), name="entry_rank_positive"),
            models.CheckConstraint(condition=Q(fladub_cents__gt=0), name="entry_fladub_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.rank}. {self.player_id} {self.fladub}"


class ListPack(AuditRecord):
    """A compact copy of a published list's strengths: its players and their FLADUB in
    cents, as two packed arrays (:mod:`rankings.list_packs` writes and reads them).

    The close reads up to 12 published lists whole (the strength lists of its window);
    from the entries that is an index scan and a ``COPY`` of some 900,000 rows per list
    (about 0.5 s), from the pack one row of two byte strings. A pack is written in the
    transaction that publishes its list (or by ``manage.py pack_lists`` for lists
    published before packs existed) and never changes: on PostgreSQL a trigger refuses a
    pack for a list that is not published or superseded, or whose count is not the
    list's ``entry_count``, and any UPDATE or DELETE of a pack (migration 0016). The
    arrays are stored without compression (``STORAGE EXTERNAL``): their bytes are
    close to random, and compressing them would cost CPU on every read for nothing.
    """

    ranking_list = models.OneToOneField(
        RankingList, on_delete=models.PROTECT, primary_key=True, related_name="pack"
    )
    count = models.PositiveIntegerField(help_text="entries in the list (and in each array)")
    players = models.BinaryField(help_text="the entries' Player keys, int64 little-endian")
    cents = models.BinaryField(help_text="their FLADUB in cents, int32 little-endian")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Exact(Length("players"), F("count") * 8)
                & Exact(Length("cents"), F("count") * 4),
                name="list_pack_lengths",
            ),
        ]

    def __str__(self) -> str:
        return f"pack of list {self.ranking_list_id} ({self.count} entries)"


class ResultPack(models.Model):
    """The results of one counting month of a discipline with their match points, packed
    by the close that first counted them (:mod:`rankings.result_packs` writes and reads
    them; PostgreSQL only).

    A match's points never change once computed (SPEC.md section 4.2: they read published
    lists, which are immutable), so a later close reads them from here instead of reading
    and scoring those results again: a close of R reads the packs of R - 11 .. R - 1 and
    only the results that no pack holds, or that changed since their pack was made. What
    changed is told by a log that triggers on ``matches_sidemember`` keep
    (``rankings_memberchange``, migration 0017): every UPDATE or DELETE of a result, an
    INSERT into a month already packed, a TRUNCATE. ``snapshot`` is the PostgreSQL
    snapshot the pack's rows were read in; a logged change that snapshot does not see
    makes its match read again. ``strengths`` names, per month played, the list L(M - 1)
    whose version the points were computed with; when a later erratum replaced that
    version, the close computes those points again from the pack's own columns.

    Immutable: a trigger refuses UPDATE and DELETE (migration 0017). Derived data, not
    history: a close that finds no pack reads the results themselves (and gets the same
    list); ``verify_list`` never reads packs, so a wrong pack could not hide.
    """

    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    month = models.DateField(help_text="the counting month of every result in the pack")
    played_from = models.DateField(help_text="results played before this month are left out")
    snapshot = models.TextField(help_text="pg_current_snapshot() of the read")
    strengths = models.JSONField(
        default=dict, help_text="month played (YYYY-MM) -> id of the L(M - 1) used, or null"
    )
    matches = models.PositiveIntegerField()
    rows = models.PositiveIntegerField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["discipline", "month"], name="result_pack_one_per_month"
            ),
            models.CheckConstraint(condition=Q(month__day=1), name="result_pack_first_day"),
        ]

    def __str__(self) -> str:
        return f"{self.discipline} {self.month:%Y-%m}: {self.rows} results"


class ResultPackChunk(models.Model):
    """A piece of a result pack's bytes (at most 8,000: the row stays in its table page,
    where PostgreSQL reads it in sequence, never out of line in TOAST, which a read of
    one 25 MB value pays chunk by chunk through an index). In ``seq`` order the chunks
    make the pack's bytes: per match, column after column, id int64, month played int32,
    void month int32 (-1: none), base int16, rows int16; then per result points float64,
    player int32, score int32, side int16; little-endian (:mod:`rankings.result_packs`).
    Immutable, like the pack."""

    pack = models.ForeignKey(ResultPack, on_delete=models.CASCADE, related_name="chunks")
    seq = models.PositiveIntegerField()
    data = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pack", "seq"], name="result_pack_chunk_once"),
        ]

    def __str__(self) -> str:
        return f"chunk {self.seq} of result pack {self.pack_id}"


class PlayerPointsPack(models.Model):
    """A busy player's match points in one discipline, packed after the close of ``month``
    (R) published its list, so that the player page and the API read them from one row
    instead of scoring every match of the player again (:mod:`rankings.player_packs`;
    PostgreSQL only).

    It holds the player's results of counting months R - 12 .. R (every result counting
    in L(R - 1) or L(R), voided or not after R - 1) with their points, as they stood in the
    PostgreSQL snapshot ``snapshot``. A reader takes them for every list from L(R - 1) on,
    and reads as rows (and scores) only what the pack cannot say: the results of later
    counting months, the matches a change logged after the snapshot touched
    (``rankings_memberchange``: a void, a merge, anything done by hand; an INSERT into a
    packed month), and the months played whose strength list L(M - 1) an erratum replaced
    since (``strengths`` names the versions the points read).

    ``tables`` holds, as they stood in the same snapshot, the tables of those results'
    matches (:mod:`rankings.player_tables`): a page of results reads them from here, and
    reads as rows only the matches changed since and those seating a player renamed since
    (``rankings_playerchange``).

    A cache, not history: a reader that finds no pack scores the results themselves and
    gets the same points (tested); a new pack of a player replaces the older one. Made for
    the players with at least ``FIDO_PLAYER_PACK_MIN_RESULTS`` results counting in L(R):
    those whose pages scoring costs most.
    """

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    month = models.DateField(help_text="the month of the list after whose close it was made")
    snapshot = models.TextField(help_text="pg_current_snapshot() of the read")
    strengths = models.JSONField(
        default=dict, help_text="month played (YYYY-MM) -> id of the L(M - 1) used, or null"
    )
    rows = models.PositiveIntegerField()
    data = models.BinaryField(
        help_text="per result, column after column: match id int64, month played int32, "
        "counting month int32, void month int32, points float64 (little-endian)"
    )
    tables = models.BinaryField(
        null=True,
        help_text="the tables of those results' matches (rankings.player_tables); "
        "null: a pack made before they were packed, read as rows and packed again",
    )
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["player", "discipline", "month"], name="player_pack_once"
            ),
            models.CheckConstraint(condition=Q(month__day=1), name="player_pack_first_day"),
            models.CheckConstraint(
                condition=Exact(Length("data"), F("rows") * 28), name="player_pack_length"
            ),
        ]
        indexes = [models.Index(fields=["discipline", "month"], name="player_pack_month")]

    def __str__(self) -> str:
        return f"points of player {self.player_id}, {self.discipline} {self.month:%Y-%m}"


class CurrentList(models.Model):
    """The published list readers see, per discipline: the pointer flipped at publication."""

    discipline = models.CharField(max_length=10, choices=Discipline.choices, unique=True)
    ranking_list = models.ForeignKey(RankingList, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["discipline"]

    def __str__(self) -> str:
        return f"{self.discipline} -> {self.ranking_list}"


class CloseRun(AuditRecord):
    """One request to close a month: the ranking job's state, progress, timings and error."""

    class State(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Succeeded")
        FAILED = "failed", _("Failed")

    class Stage(models.TextChoices):
        QUEUED = "queued", _("Queued")
        WAITING = "waiting", _("Waiting for another close")
        FREEZE = "freeze", _("Freezing the month")
        LOAD = "load", _("Loading results")
        COMPUTE = "compute", _("Computing FLADUB")
        WRITE = "write", _("Writing entries")
        PUBLISH = "publish", _("Publishing")
        DONE = "done", _("Done")

    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    month = models.DateField(help_text="first day of the month to close")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    stage = models.CharField(max_length=10, choices=Stage.choices, default=Stage.QUEUED)
    percent = models.PositiveSmallIntegerField(default=0)
    # Seconds per stage: {"freeze": 0.01, "load": 3.2, "compute": 2.9, "write": 1.4, ...}
    timings = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    task_id = models.CharField(max_length=255, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    ranking_list = models.ForeignKey(
        RankingList, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The outbox: when the broker accepted the run's task (null: not handed over yet, or
    # handed back; beat re-sends it, rankings.services.close_recover).
    dispatched_at = models.DateTimeField(null=True, blank=True)
    # Written by the running job every FIDO_CLOSE_HEARTBEAT seconds; a running run whose
    # heartbeat is older than FIDO_CLOSE_STALE_AFTER lost its worker and is re-dispatched.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # The erratum this run publishes (null: the close of the month).
    erratum = models.ForeignKey(
        "Erratum", null=True, blank=True, on_delete=models.PROTECT, related_name="runs"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["discipline", "month"], name="close_run_month")]
        constraints = [
            models.CheckConstraint(condition=Q(month__day=1), name="close_run_first_day"),
            models.CheckConstraint(condition=Q(percent__lte=100), name="close_run_percent"),
        ]

    def __str__(self) -> str:
        return f"close {self.discipline} {self.month:%Y-%m}: {self.state}"

    @property
    def is_finished(self) -> bool:
        return self.state in {self.State.SUCCEEDED, self.State.FAILED}


class ProjectionRun(models.Model):
    """One refresh of a discipline's projected list: who asked (nobody: the nightly beat),
    its state, stage and percentage, and the error (:mod:`rankings.services.projection`).

    Apart from :class:`CloseRun` on purpose: a projection never blocks, nor is mistaken
    for, a close.
    """

    class State(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        SUCCEEDED = "succeeded", _("Succeeded")
        FAILED = "failed", _("Failed")

    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    month = models.DateField(null=True, blank=True, help_text="the month projected")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    stage = models.CharField(max_length=10, default="queued")
    percent = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    ranking_list = models.ForeignKey(
        RankingList, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(percent__lte=100), name="projection_run_percent"),
        ]

    def __str__(self) -> str:
        return f"projection {self.discipline}: {self.state}"

    @property
    def is_finished(self) -> bool:
        return self.state in {self.State.SUCCEEDED, self.State.FAILED}


class ProjectionReview(models.Model):
    """The admin's review of one projected list, computed with it on the worker
    (:mod:`rankings.services.projection_review`): the anomaly flags of the open month and
    the movers against the current list, in the stored form of
    :mod:`rankings.selectors.stored_review` (which reads them back), and when they were
    computed. Replaced with its projection (deleted with it); the review page only reads it.
    """

    ranking_list = models.OneToOneField(
        RankingList, on_delete=models.CASCADE, related_name="projection_review"
    )
    computed_at = models.DateTimeField()
    flags = models.JSONField(help_text="question -> its flags, each with the matches shown")
    movers = models.JSONField(help_text="climbers, fallers, new entries, drop-outs, counts")

    def __str__(self) -> str:
        return f"review of projection {self.ranking_list_id}"


class CloseHold(AuditRecord):
    """An admin held or released a discipline's close, with who, when and why (an event:
    the discipline is held while its latest event is a hold). Beat skips a held close."""

    class Action(models.TextChoices):
        HOLD = "hold", _("Held")
        RELEASE = "release", _("Released")

    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    action = models.CharField(max_length=10, choices=Action.choices)
    reason = models.TextField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["discipline", "-at"], name="close_hold_latest")]

    def __str__(self) -> str:
        return f"{self.discipline} {self.action} at {self.at:%Y-%m-%d %H:%M}"


class Erratum(AuditRecord):
    """An admin asked for a corrected version of a closed month's list, with who, when and
    why (an event, never edited). ``cause`` is set on the errata of the later months that
    one "recompute later months" request asked for: the erratum they follow. Its list is
    published by the close service (:func:`rankings.services.close.month_close` with
    ``erratum``); the errata of one request run one after the other, month by month
    (:mod:`rankings.services.errata`)."""

    discipline = models.CharField(max_length=10, choices=Discipline.choices)
    month = models.DateField(help_text="first day of the month whose list is corrected")
    reason = models.TextField()
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    at = models.DateTimeField()
    cause = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="followers"
    )

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "errata"
        indexes = [models.Index(fields=["discipline", "month"], name="erratum_month")]
        constraints = [
            models.CheckConstraint(condition=Q(month__day=1), name="erratum_first_day"),
        ]

    def __str__(self) -> str:
        return f"erratum {self.discipline} {self.month:%Y-%m} at {self.at:%Y-%m-%d %H:%M}"
