"""Players' records (``PlayerRecord``): each game counted as it ends from now on
(``games.services.records``); the games finished before are counted here from their seats, as
the profile counted them on every load until now."""

import json
from collections import Counter

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# PostgreSQL counts them in one statement (bench/years runs it too, for its generated years):
# alone in first place, first place shared, any other place.
RECORDS_FROM_SEATS = """
INSERT INTO games_playerrecord (user_id, game, solo, level, wins, draws, losses)
SELECT s.user_id, t.game, t.num_seats = 1,
       CASE WHEN t.num_seats = 1
            THEN COALESCE((t.outcome #> '{details,solo,level}')::text, 'null') ELSE '' END,
       count(*) FILTER (WHERE s.rank = 0 AND NOT f.shared),
       count(*) FILTER (WHERE s.rank = 0 AND f.shared),
       count(*) FILTER (WHERE s.rank > 0)
FROM games_seat s
JOIN games_table t ON t.id = s.table_id
CROSS JOIN LATERAL (
    SELECT EXISTS (
        SELECT 1 FROM games_seat o WHERE o.table_id = s.table_id AND o.rank = 0 AND o.id <> s.id
    ) AS shared
) f
WHERE t.status = 'finished' AND s.rank IS NOT NULL AND s.user_id IS NOT NULL
GROUP BY 1, 2, 3, 4
"""


def records_from_seats(apps, schema_editor) -> None:
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(RECORDS_FROM_SEATS)
        return
    # SQLite (the embedded default: a small database): the same counts in Python.
    Seat = apps.get_model("games", "Seat")
    PlayerRecord = apps.get_model("games", "PlayerRecord")
    seats = list(
        Seat.objects.filter(table__status="finished", rank__isnull=False).values(
            "user_id", "rank", "table_id", "table__game", "table__num_seats", "table__outcome"
        )
    )
    firsts = Counter(seat["table_id"] for seat in seats if seat["rank"] == 0)
    counts: dict[tuple, list[int]] = {}
    for seat in seats:
        if seat["user_id"] is None:
            continue
        solo = seat["table__num_seats"] == 1
        details = (seat["table__outcome"] or {}).get("details") or {}
        level = json.dumps((details.get("solo") or {}).get("level"), sort_keys=True) if solo else ""
        row = counts.setdefault((seat["user_id"], seat["table__game"], solo, level), [0, 0, 0])
        first = seat["rank"] == 0
        row[0 if first and firsts[seat["table_id"]] == 1 else 1 if first else 2] += 1
    PlayerRecord.objects.bulk_create(
        PlayerRecord(user_id=u, game=g, solo=s, level=lv, wins=w, draws=d, losses=lo)
        for (u, g, s, lv), (w, d, lo) in counts.items()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0016_seat_finished_at"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="PlayerRecord",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("game", models.CharField(max_length=32)),
                ("solo", models.BooleanField(default=False)),
                ("level", models.CharField(blank=True, max_length=64)),
                ("wins", models.PositiveIntegerField(default=0)),
                ("draws", models.PositiveIntegerField(default=0)),
                ("losses", models.PositiveIntegerField(default=0)),
                (
                    "user",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="records",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "game", "solo", "level"), name="record_unique"
                    )
                ],
            },
        ),
        migrations.RunPython(records_from_seats, migrations.RunPython.noop),
    ]
