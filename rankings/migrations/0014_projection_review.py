"""The admin's review stored with each projected list (``ProjectionReview``): the anomaly
flags and movers are computed on the worker with the projection, not on every page view
(they took about 37 s at full scale, docs/review.md)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("rankings", "0013_player_id_prefix")]

    operations = [
        migrations.CreateModel(
            name="ProjectionReview",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("computed_at", models.DateTimeField()),
                (
                    "flags",
                    models.JSONField(
                        help_text="question -> its flags, each with the matches shown"
                    ),
                ),
                (
                    "movers",
                    models.JSONField(
                        help_text="climbers, fallers, new entries, drop-outs, counts"
                    ),
                ),
                (
                    "ranking_list",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="projection_review",
                        to="rankings.rankinglist",
                    ),
                ),
            ],
        ),
    ]
