"""CloseRun's outbox (dispatched_at) and heartbeat (heartbeat_at), for the recovery of a run
whose task never reached the broker or whose worker died (rankings.services.close_recover).
Runs recorded before count as dispatched when they were created, so none is re-sent."""

from django.db import migrations, models
from django.db.models import F


def existing_runs_dispatched(apps, schema_editor):
    CloseRun = apps.get_model("rankings", "CloseRun")
    CloseRun.objects.update(dispatched_at=F("created_at"))


class Migration(migrations.Migration):

    dependencies = [
        ("rankings", "0010_list_versions"),
    ]

    operations = [
        migrations.AddField(
            model_name="closerun",
            name="dispatched_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="closerun",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(existing_runs_dispatched, migrations.RunPython.noop),
    ]
