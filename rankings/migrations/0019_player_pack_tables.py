"""The tables of a busy player's matches in their pack of points
(``PlayerPointsPack.tables``, :mod:`rankings.player_tables`), and the log that tells a
pack's reader which players' names changed since its snapshot.

PostgreSQL only, besides the column (elsewhere it exists and stays empty):

- ``rankings_playerchange``: one row per player whose ``player_id`` or ``name`` an UPDATE
  changed, with its transaction (``xid``, ``pg_current_xact_id()``), written by a statement
  trigger on ``matches_player``; ``player_id`` NULL means every player (a TRUNCATE). A
  reader of a pack's tables reads as rows the matches seating a player whose change the
  pack's snapshot does not see (``pg_visible_in_snapshot``), as the results' changes are
  read from ``rankings_memberchange``. Not history (the registry's audit is): a cache's
  invalidation log.

The packs made before this migration have no tables (NULL): their readers read every
table as rows, and the next ``pack_lists`` (or the task after a close) packs them again.
"""

from django.db import migrations, models

POSTGRES_FORWARD = r"""
CREATE TABLE rankings_playerchange (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player_id bigint,
    xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX rankings_playerchange_xid ON rankings_playerchange (xid);
COMMENT ON TABLE rankings_playerchange IS
    'players whose id or name changed (player_id NULL: all), by transaction: what the '
    'tables of player packs made before that transaction must not be trusted for '
    '(rankings.player_tables)';

CREATE FUNCTION rankings_player_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        INSERT INTO rankings_playerchange (player_id) VALUES (NULL);
    ELSE
        INSERT INTO rankings_playerchange (player_id)
        SELECT n.id FROM new_players n JOIN old_players o ON o.id = n.id
        WHERE n.name IS DISTINCT FROM o.name OR n.player_id IS DISTINCT FROM o.player_id;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER rankings_player_updated
    AFTER UPDATE ON matches_player
    REFERENCING OLD TABLE AS old_players NEW TABLE AS new_players
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_player_changed();
CREATE TRIGGER rankings_player_truncated
    AFTER TRUNCATE ON matches_player
    FOR EACH STATEMENT EXECUTE FUNCTION rankings_player_changed();
"""
POSTGRES_BACKWARD = """
DROP TRIGGER IF EXISTS rankings_player_truncated ON matches_player;
DROP TRIGGER IF EXISTS rankings_player_updated ON matches_player;
DROP FUNCTION IF EXISTS rankings_player_changed();
DROP TABLE IF EXISTS rankings_playerchange;
"""


def statements(direction):
    """The RunPython step that runs PostgreSQL's statements of ``direction``."""

    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            forward = direction == "forward"
            schema_editor.execute(POSTGRES_FORWARD if forward else POSTGRES_BACKWARD, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("matches", "0007_match_club_played"),
        ("rankings", "0018_player_points_pack"),
    ]

    operations = [
        migrations.AddField(
            model_name="playerpointspack",
            name="tables",
            field=models.BinaryField(
                help_text=(
                    "the tables of those results' matches (rankings.player_tables); "
                    "null: a pack made before they were packed, read as rows and packed again"
                ),
                null=True,
            ),
        ),
        migrations.RunPython(statements("forward"), statements("backward")),
    ]
