"""The bytes an HTML answer puts on the wire, with and without ``Accept-Encoding: gzip`` (#19.8).

Fetches the lobby and a running Point City table (signed in and as a visitor, plus the board's
HTMX fragment) through the real middleware stack (the bench settings: DEBUG off, Django's
GZipMiddleware as in production) and counts the body's bytes each way. Static files are not
counted: whitenoise serves them compressed ahead of time.

    .venv/bin/python bench/page_bytes.py    # (part of make bench; DATABASE_URL to use a
                                            # database of yours, else it makes one and drops it)
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.django_setup import setup_django

setup_django("bytes")

from django.core.management import call_command  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402

from accounts.models import User  # noqa: E402
from bench.sections import DOCS, write_section  # noqa: E402
from games.models import Table  # noqa: E402
from games.rules import get_rules  # noqa: E402
from games.services import moves, tables  # noqa: E402

MOVES = 30  # a Point City table well into its game: a market, tableaus and a log


def point_city_table(users: list[User]) -> Table:
    """A two-player Point City table after ``MOVES`` random moves (seeded: the same every run)."""
    table = tables.table_create(
        user=users[0], game="point-city", num_seats=2, seconds_per_move=86400
    )
    with mock.patch.object(tables.secrets, "randbits", lambda bits: 19):  # the deal: fixed
        tables.table_join(table_id=table.pk, user=users[1])
    rules, rng = get_rules("point-city"), random.Random(19)
    by_seat = {seat.position: seat.user for seat in table.seats.select_related("user")}
    for _ in range(MOVES):
        table.refresh_from_db()
        state = rules.from_json(table.state)
        if rules.outcome(state) is not None:
            break
        seat = rng.choice(rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, seat))
        moves.move_play(table_id=table.pk, user=by_seat[seat], action=action, version=table.version)
    table.refresh_from_db()
    return table


def wire_bytes(client: Client, url: str, **headers: str) -> tuple[int, int, str]:
    """The body's bytes without and with ``Accept-Encoding: gzip``, and the encoding used."""
    plain: HttpResponse = client.get(url, **headers)
    packed: HttpResponse = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br", **headers)
    assert plain.status_code == packed.status_code == 200, (url, plain.status_code)
    assert not plain.has_header("Content-Encoding")
    return len(plain.content), len(packed.content), packed.get("Content-Encoding", "none")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print, leave the docs alone")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    users = [
        User.objects.get_or_create(username=f"bytes{i}", defaults={"email": f"y{i}@x.org"})[0]
        for i in range(2)
    ]
    table = point_city_table(users)
    visitor, player = Client(), Client()
    player.force_login(users[0])
    board = reverse("table_detail", args=[table.pk])
    pages = [
        ("lobby, a visitor", visitor, reverse("lobby"), {}),
        ("lobby, signed in", player, reverse("lobby"), {}),
        (f"Point City table after {MOVES} moves, a spectator", visitor, board, {}),
        (f"Point City table after {MOVES} moves, a seated player", player, board, {}),
        (
            "its board as an HTMX fragment, the seated player",
            player,
            board,
            {"HTTP_HX_REQUEST": "true"},
        ),
    ]
    rows = [
        "| page | HTML bytes, no `Accept-Encoding` | with `Accept-Encoding: gzip` | encoding"
        " | ratio |",
        "|---|---|---|---|---|",
    ]
    for name, client, url, headers in pages:
        plain, packed, encoding = wire_bytes(client, url, **headers)
        rows.append(f"| {name} | {plain:,} | {packed:,} | {encoding} | {plain / packed:.1f}x |")
        print(rows[-1], flush=True)
    section = [
        "## HTML on the wire, compressed (#19.8)",
        "",
        f"`.venv/bin/python bench/page_bytes.py` (part of `make bench`) on"
        f" {time.strftime('%Y-%m-%d', time.gmtime())}: the bytes of each answer's body\n"
        "through the production middleware (Django's `GZipMiddleware`), asked without and\n"
        "with `Accept-Encoding: gzip`; the Point City table is the same deal and moves every\n"
        "run (seeded). Static files are not in it: whitenoise serves them compressed ahead of\n"
        "time. The seated player's page is the larger: the private part lists each of its\n"
        "offers as a form. The compressed sizes move by up to 100 bytes from run to run:\n"
        "`GZipMiddleware`'s random padding against BREACH (docs/deploy.md).",
        "",
        *rows,
    ]
    if not args.no_write:
        write_section(DOCS, "\n".join(section) + "\n", source="bench/page_bytes.py")
        print(f"wrote {DOCS}")


if __name__ == "__main__":
    main()
