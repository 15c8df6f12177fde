"""A move's transaction the ORM's way (as before #31.1) against its own statements
(``games.services.move_statements``), prepared and not: the CPU that ``move_play`` spends in
this process and in its PostgreSQL backend. The ways take turns move by move over the same
games (the same deals, the same moves), so that whatever else the machine does falls on all
of them alike. A game's last move (results, ratings: the ORM's either way) is left out.

    .venv/bin/python bench/move_statements.py    # DATABASE_URL to use a database of yours,
                                                 # else it makes one and drops it
    .venv/bin/python bench/move_statements.py --games slide --rounds 8

It prints a table; docs/benchmarks.md ("The move's statements (#31.1)") has its figures.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.django_setup import setup_django

setup_django("move_statements")

import pytest  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from accounts.models import User  # noqa: E402
from games.models import Table  # noqa: E402
from games.rules import get_rules  # noqa: E402
from games.services import move_statements, tables  # noqa: E402
from games.services.moves import move_play  # noqa: E402
from tests.games.orm_moves import through_the_orm  # noqa: E402

GAMES = {"district-noir": 2, "gnav": 4, "slide": 3, "point-city": 2}


def _not_prepared(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(move_statements, "_cursor", lambda db: db.cursor())


WAYS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "ORM": through_the_orm,
    "statements, not prepared": _not_prepared,
    "statements, prepared": lambda patch: None,
}


def backend_cpu_ms() -> float | None:
    """The CPU time PostgreSQL's process for this connection has used (None: not readable,
    the server on another machine)."""
    connection.ensure_connection()
    try:
        with open(f"/proc/{connection.connection.info.backend_pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def new_table(game: str, users: list[User], deal: int) -> int:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tables.secrets, "randbits", lambda bits: deal)
        table = tables.table_create(
            user=users[0], game=game, num_seats=len(users), seconds_per_move=86400
        )
        for user in users[1:]:
            tables.table_join(table_id=table.pk, user=user)
    return table.pk


def one_game_each(game: str, users: list[User], deal: int) -> dict[str, list[tuple[float, float]]]:
    """The same game played once each way, a move of each in turn: (CPU ms here, CPU ms in
    PostgreSQL or NaN) of each move but the last."""
    ids = {way: new_table(game, users, deal) for way in WAYS}
    rngs = {way: random.Random(deal) for way in WAYS}
    spent: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
    rules = get_rules(game)
    while True:
        running = 0
        for way, how in WAYS.items():
            table = Table.objects.get(pk=ids[way])
            if not table.is_running:
                continue
            running += 1
            state = rules.from_json(table.state)
            seat = rngs[way].choice(rules.waiting_seats(state) or rules.active_seats(state))
            action = rngs[way].choice(rules.legal_actions(state, seat))
            ends = rules.outcome(rules.apply(state, seat, action)) is not None
            with pytest.MonkeyPatch.context() as patch:
                how(patch)
                server = backend_cpu_ms()
                started = time.process_time()
                move_play(table_id=table.pk, user=users[seat], action=action, version=table.version)
                here = (time.process_time() - started) * 1000
                after = backend_cpu_ms()
            if not ends:
                there = after - server if server is not None and after is not None else float("nan")
                spent[way].append((here, there))
        if not running:
            return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma list of games")
    parser.add_argument("--rounds", type=int, default=4, help="games of each, each way")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    users = [
        User.objects.get_or_create(username=f"statements{i}", defaults={"email": f"s{i}@x.org"})[0]
        for i in range(max(GAMES.values()))
    ]
    print(f"load average {os.getloadavg()[0]:.1f} at the start, {os.cpu_count()} CPUs")
    print(
        "| game | moves | " + " | ".join(f"{way}: CPU ms here / PostgreSQL" for way in WAYS) + " |"
    )
    print("|---|---|" + "---|" * len(WAYS))
    for game in args.games.split(","):
        spent: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
        for deal in range(1, args.rounds + 1):
            for way, moves in one_game_each(game, users[: GAMES[game]], deal).items():
                spent[way] += moves
        means = [[statistics.mean(column) for column in zip(*moves)] for moves in spent.values()]
        cells = [f"{here:.2f} / {there:.2f}" for here, there in means]
        print(f"| {game} | {len(spent['ORM'])} | " + " | ".join(cells) + " |", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
