"""Seats carry their table's end (``Seat.finished_at``), set with the place when a game
finishes: a player's finished games, newest first, are then a range of one index
(``seat_user_finished``). The seats of tables finished before are given their table's end, then
the index is built (after the update: one build, not an entry at a time)."""

from django.conf import settings
from django.db import migrations, models

# PostgreSQL joins the two tables once; SQLite (the embedded default) asks a row at a time.
BACKFILL = {
    "postgresql": (
        "UPDATE games_seat AS s SET finished_at = t.finished_at FROM games_table AS t"
        " WHERE s.table_id = t.id AND t.status = 'finished'"
    ),
    "sqlite": (
        "UPDATE games_seat SET finished_at ="
        " (SELECT t.finished_at FROM games_table t WHERE t.id = games_seat.table_id)"
        " WHERE table_id IN (SELECT id FROM games_table WHERE status = 'finished')"
    ),
}


def seats_finished(apps, schema_editor) -> None:
    schema_editor.execute(BACKFILL[schema_editor.connection.vendor])


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0015_record_from_indexes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="finished_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(seats_finished, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("finished_at__isnull", False)),
                fields=["user", "-finished_at", "-table"],
                name="seat_user_finished",
            ),
        ),
    ]
