"""Checks a finished game: `manage.py verify_game <table id>` or `--file record.json`."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from games.models import Table
from games.selectors.fairness import GameRecord, game_record, replays_exactly


class Command(BaseCommand):
    help = (
        "Replays a finished game from its revealed seed and its move log and says whether "
        "that gives exactly the final state. Give a table id, or --file with the game record "
        "downloaded from the game's replay page."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("table_id", nargs="?", type=int)
        parser.add_argument("--file", help="a game record (JSON) instead of a table id")

    def handle(self, *args, **options) -> None:
        record = self._record(options["table_id"], options["file"])
        self.stdout.write(f"game:   {record.game}, {record.num_seats} seats")
        self.stdout.write(f"seed:   {record.seed}")
        self.stdout.write(f"sha256: {record.seed_sha256}")
        self.stdout.write(f"moves:  {len(record.moves)}")
        if not replays_exactly(record):
            raise CommandError("MISMATCH: the seed and the moves do not give the final state.")
        self.stdout.write(
            self.style.SUCCESS("OK: the seed and the moves give exactly the final state.")
        )

    def _record(self, table_id: int | None, path: str | None) -> GameRecord:
        if path:
            try:
                return GameRecord.from_json(json.loads(Path(path).read_text()))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise CommandError(f"Cannot read a game record from {path}: {exc}") from None
        if table_id is None:
            raise CommandError("Give a table id or --file.")
        table = Table.objects.filter(pk=table_id).first()
        if table is None:
            raise CommandError(f"There is no table {table_id}.")
        if not table.is_finished:
            raise CommandError(f"Table {table_id} is not finished: its seed is still secret.")
        return game_record(table)
