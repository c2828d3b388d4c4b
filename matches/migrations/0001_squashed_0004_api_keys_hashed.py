"""The matches schema as migrations 0001 to 0004 left it, in one step (squashed by hand).

A database that has applied 0001_initial ... 0004_api_keys_hashed counts this migration as
applied (``replaces``) and runs nothing; a new database gets the same tables, columns (in
the same order), indexes and constraints in one go. What the replaced steps did:

- 0001: the clubs, players, matches, their sides and members, submissions, closed months,
  idempotency records;
- 0002: no index of its own for a foreign key that leads a composite index (a match's
  club, a side's or member's match, a member's player, an idempotency record's user); a
  partial index of voided matches by who voided them;
- 0003: the undo of a player merge, and the ids a merge redirected;
- 0004: API tokens stored as SHA-256 digests with expiry and revocation (issue 16, item 8).
  Every plaintext token of DRF's ``authtoken`` table is carried over as its digest (so
  clients keep working until it expires, FIDO_TOKEN_DAYS after the migration), then the
  plaintext rows are deleted.
"""

import datetime as dt
import hashlib

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

CASCADE = django.db.models.deletion.CASCADE
PROTECT = django.db.models.deletion.PROTECT
USER = settings.AUTH_USER_MODEL
DISCIPLINES = [
    ("fido", "FIDO divisor game"),
    ("allfives", "All Fives (Muggins / Five Up)"),
    ("austrian", "Austrian double-eight"),
]
ISO2 = "^[A-Z]{2}$"


def model(name, fields, options=None):
    """The creation of a table of this app: its key ``id``, then ``fields``."""
    key = ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"))
    return migrations.CreateModel(name=name, fields=[key, *fields], options=options)


def discipline():
    return ("discipline", models.CharField(choices=DISCIPLINES, max_length=10))


def country():
    check = django.core.validators.RegexValidator(ISO2, "a country is an ISO 3166-1 alpha-2 code")
    return ("country", models.CharField(max_length=2, validators=[check]))


def federation_id(pattern, message):
    check = django.core.validators.RegexValidator(pattern, message)
    return models.CharField(max_length=48, unique=True, validators=[check])


def by(name, **options):
    """A nullable reference to the user who did something."""
    return (name, models.ForeignKey(blank=True, null=True, on_delete=PROTECT, to=USER, **options))


def hash_existing_tokens(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    ApiKey = apps.get_model("matches", "ApiKey")
    now = timezone.now()
    expires = now + dt.timedelta(days=getattr(settings, "FIDO_TOKEN_DAYS", 90))
    ApiKey.objects.bulk_create(
        [
            ApiKey(
                user_id=token.user_id,
                digest=hashlib.sha256(token.key.encode()).hexdigest(),
                prefix=token.key[:6],
                created_at=token.created or now,
                expires_at=expires,
            )
            for token in Token.objects.all().iterator()
        ]
    )
    Token.objects.all().delete()


# The steps this migration replaces.
REPLACED = """
0001_initial 0002_drop_indexes_led_by_composites 0003_merge_undo_audit
0004_api_keys_hashed
""".split()


class Migration(migrations.Migration):
    initial = True

    replaces = [("matches", name) for name in REPLACED]

    dependencies = [("authtoken", "0004_alter_tokenproxy_options"), migrations.swappable_dependency(settings.AUTH_USER_MODEL)]

    operations = [
        model(
            "Club",
            [
                ("club_id", federation_id("^CLUB-[A-Za-z0-9][A-Za-z0-9_-]{0,40}$", "a club id looks like CLUB-7 or CLUB-BER")),
                ("name", models.CharField(max_length=200)),
                country(),
                ("city", models.CharField(blank=True, max_length=200)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            {
                "ordering": ["club_id"],
                "constraints": [models.CheckConstraint(condition=models.Q(("country__regex", ISO2)), name="club_country_iso2")],
            },
        ),
        model(
            "Match",
            [
                ("external_id", models.CharField(max_length=120)),
                ("revision", models.PositiveSmallIntegerField(default=1)),
                ("date_played", models.DateField()),
                discipline(),
                ("category", models.CharField(choices=[("club", "Club"), ("league", "League"), ("national", "National"), ("international", "International"), ("world", "World")], max_length=16)),
                ("received_at", models.DateTimeField()),
                ("status", models.CharField(choices=[("on_time", "On time"), ("late", "Late")], max_length=8)),
                ("counting_month", models.DateField(help_text="first day of the month whose list it enters")),
                ("records", models.JSONField(blank=True, null=True)),
                ("voided_at", models.DateTimeField(blank=True, null=True)),
                ("void_reason", models.TextField(blank=True)),
                ("void_effective_month", models.DateField(blank=True, null=True)),
                ("club", models.ForeignKey(db_index=False, on_delete=PROTECT, related_name="matches", to="matches.club")),
                ("replaces", models.OneToOneField(blank=True, null=True, on_delete=PROTECT, related_name="replaced_by", to="matches.match")),
                by("voided_by", db_index=False, related_name="+"),
            ],
            {
                "verbose_name_plural": "matches",
                "ordering": ["-date_played", "-id"],
                "indexes": [
                    models.Index(fields=["discipline", "counting_month"], name="matches_mat_discipl_30012f_idx"),
                    models.Index(fields=["club", "-received_at"], name="matches_mat_club_id_37989c_idx"),
                    models.Index(condition=models.Q(("voided_by__isnull", False)), fields=["voided_by"], name="match_voided_by"),
                ],
                "constraints": [
                    models.UniqueConstraint(fields=("club", "external_id", "revision"), name="match_unique_revision"),
                    models.CheckConstraint(condition=models.Q(("counting_month__day", 1)), name="match_counting_month_first_day"),
                    models.CheckConstraint(condition=models.Q(models.Q(("void_effective_month__isnull", True), ("voided_at__isnull", True)), models.Q(("void_effective_month__isnull", False), ("voided_at__isnull", False)), _connector="OR"), name="match_void_is_complete"),
                    models.CheckConstraint(condition=models.Q(("revision__gte", 1)), name="match_revision_positive"),
                ],
            },
        ),
        model(
            "MatchEvent",
            [
                ("kind", models.CharField(choices=[("submitted", "Submitted"), ("corrected", "Corrected"), ("voided", "Voided"), ("merged", "Merged"), ("unmerged", "Unmerged")], max_length=10)),
                ("at", models.DateTimeField()),
                ("reason", models.TextField(blank=True)),
                ("details", models.JSONField(blank=True, default=dict)),
                by("by"),
                ("match", models.ForeignKey(on_delete=CASCADE, related_name="events", to="matches.match")),
            ],
            {"ordering": ["at", "id"]},
        ),
        model(
            "Player",
            [
                ("player_id", federation_id("^P-[A-Za-z0-9][A-Za-z0-9_-]{0,40}$", "a player id looks like P-000123")),
                ("name", models.CharField(max_length=200)),
                country(),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("club", models.ForeignKey(blank=True, null=True, on_delete=PROTECT, related_name="members", to="matches.club")),
                ("merged_into", models.ForeignKey(blank=True, null=True, on_delete=PROTECT, related_name="merged_from", to="matches.player")),
            ],
            {
                "ordering": ["player_id"],
                "indexes": [models.Index(fields=["name"], name="matches_pla_name_33d256_idx")],
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("country__regex", ISO2)), name="player_country_iso2"),
                    models.CheckConstraint(condition=models.Q(("merged_into", models.F("id")), _negated=True), name="player_not_merged_into_self"),
                ],
            },
        ),
        model(
            "PlayerMerge",
            [
                ("merged_at", models.DateTimeField()),
                ("reason", models.TextField()),
                ("results_moved", models.PositiveIntegerField()),
                ("match_ids", models.JSONField(default=list)),
                by("merged_by"),
                ("source", models.ForeignKey(on_delete=PROTECT, related_name="merges_out", to="matches.player")),
                ("target", models.ForeignKey(on_delete=PROTECT, related_name="merges_in", to="matches.player")),
                ("redirected_ids", models.JSONField(blank=True, default=list)),
            ],
            {"ordering": ["-merged_at"]},
        ),
        model(
            "Secretary",
            [
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("club", models.ForeignKey(on_delete=CASCADE, related_name="secretaries", to="matches.club")),
                ("user", models.ForeignKey(on_delete=CASCADE, related_name="secretary_roles", to=USER)),
            ],
            {"constraints": [models.UniqueConstraint(fields=("user", "club"), name="secretary_unique_user_club")]},
        ),
        model(
            "Side",
            [
                ("position", models.PositiveSmallIntegerField(validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(9)])),
                ("score", models.IntegerField()),
                ("match", models.ForeignKey(db_index=False, on_delete=CASCADE, related_name="sides", to="matches.match")),
            ],
            {
                "ordering": ["match", "position"],
                "constraints": [
                    models.UniqueConstraint(fields=("match", "position"), name="side_unique_position"),
                    models.CheckConstraint(condition=models.Q(("position__gte", 1), ("position__lte", 9)), name="side_position_1_9"),
                ],
            },
        ),
        model(
            "SideMember",
            [
                discipline(),
                ("month_played", models.DateField()),
                ("counting_month", models.DateField()),
                ("base", models.PositiveSmallIntegerField()),
                ("side_position", models.PositiveSmallIntegerField()),
                ("score", models.IntegerField()),
                ("void_effective_month", models.DateField(blank=True, null=True)),
                ("match", models.ForeignKey(db_index=False, on_delete=CASCADE, related_name="members", to="matches.match")),
                ("player", models.ForeignKey(db_index=False, on_delete=PROTECT, related_name="results", to="matches.player")),
                ("side", models.ForeignKey(on_delete=CASCADE, related_name="members", to="matches.side")),
            ],
            {
                "indexes": [
                    models.Index(fields=["discipline", "counting_month"], name="member_window"),
                    models.Index(fields=["player", "discipline"], name="member_player"),
                ],
                "constraints": [models.UniqueConstraint(fields=("match", "player"), name="member_once_per_match")],
            },
        ),
        model(
            "Submission",
            [
                ("received_at", models.DateTimeField(db_index=True)),
                ("channel", models.CharField(choices=[("web", "Web form"), ("csv", "CSV upload"), ("api", "REST API"), ("import", "Bulk import")], max_length=8)),
                ("club", models.ForeignKey(on_delete=PROTECT, related_name="submissions", to="matches.club")),
                by("submitted_by"),
            ],
            {"ordering": ["-received_at", "-id"]},
        ),
        migrations.AddField(
            model_name="match",
            name="submission",
            field=models.ForeignKey(on_delete=PROTECT, related_name="matches", to="matches.submission"),
        ),
        model(
            "ClosedMonth",
            [
                discipline(),
                ("month", models.DateField(help_text="first day of the closed month")),
                ("closed_at", models.DateTimeField()),
                by("closed_by"),
            ],
            {
                "ordering": ["discipline", "-month"],
                "constraints": [
                    models.UniqueConstraint(fields=("discipline", "month"), name="closed_month_unique"),
                    models.CheckConstraint(condition=models.Q(("month__day", 1)), name="closed_month_first_day"),
                ],
            },
        ),
        model(
            "IdempotencyRecord",
            [
                ("key", models.CharField(max_length=200)),
                ("request_hash", models.CharField(max_length=64)),
                ("status_code", models.PositiveSmallIntegerField()),
                ("response_body", models.JSONField()),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("user", models.ForeignKey(db_index=False, on_delete=CASCADE, to=USER)),
            ],
            {"constraints": [models.UniqueConstraint(fields=("user", "key"), name="idempotency_unique_user_key")]},
        ),
        model(
            "PlayerMergeUndo",
            [
                ("undone_at", models.DateTimeField()),
                ("reason", models.TextField()),
                ("results_moved", models.PositiveIntegerField()),
                ("merge", models.OneToOneField(on_delete=PROTECT, related_name="undo", to="matches.playermerge")),
                by("undone_by"),
            ],
            {"ordering": ["-undone_at"]},
        ),
        model(
            "ApiKey",
            [
                ("digest", models.CharField(max_length=64, unique=True)),
                ("prefix", models.CharField(help_text="the key's first characters, to tell keys apart", max_length=8)),
                ("created_at", models.DateTimeField()),
                ("expires_at", models.DateTimeField()),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                ("user", models.ForeignKey(on_delete=CASCADE, related_name="api_keys", to=USER)),
            ],
            {"verbose_name": "API token"},
        ),
        migrations.RunPython(hash_existing_tokens, migrations.RunPython.noop),
    ]
