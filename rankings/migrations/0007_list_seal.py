"""The seal of a list (rankings.seal): SHA-256 of its CSV download and of its inputs, their
count, the FLADUB definition and code versions. Nullable without default, so that SQLite
adds the columns in place (a rebuilt table would lose the triggers of 0002); lists published
before have no seal."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('rankings', '0006_one_player_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='rankinglist',
            name='code_version',
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name='rankinglist',
            name='content_sha256',
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name='rankinglist',
            name='fladub_version',
            field=models.CharField(blank=True, max_length=16, null=True),
        ),
        migrations.AddField(
            model_name='rankinglist',
            name='inputs_count',
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='rankinglist',
            name='inputs_sha256',
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
    ]
