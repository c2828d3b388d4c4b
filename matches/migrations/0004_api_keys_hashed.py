"""API tokens stored as SHA-256 digests with expiry and revocation (issue 16, item 8).

Every existing plaintext token of DRF's ``authtoken`` table is carried over as its digest
(so clients keep working until it expires, FIDO_TOKEN_DAYS after this migration), then the
plaintext rows are deleted."""

import datetime as dt
import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


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


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0003_merge_undo_audit"),
        ("authtoken", "0004_alter_tokenproxy_options"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiKey",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("prefix", models.CharField(help_text="the key's first characters, to tell keys apart", max_length=8)),
                ("created_at", models.DateTimeField()),
                ("expires_at", models.DateTimeField()),
                ("revoked_at", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="api_keys",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"verbose_name": "API token"},
        ),
        migrations.RunPython(hash_existing_tokens, migrations.RunPython.noop),
    ]
