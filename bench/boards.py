"""What one board costs the web process, per game: CPU per request, in-process.

Plays whole games through the real views (Django's test client, PostgreSQL from
``DATABASE_URL``, the bench settings: DEBUG off, cached templates) and times, per game:
an action POST (the move and the new board in its answer), a seat's board fetch (the
HTMX fragment), with the queries each runs, and the cheapest signed-in request there is
(an unchanged board poll: session, user, one query, 204): the floor under every request.
No server, no network: the part of a request that is ours.

    .venv/bin/python bench/boards.py    # (part of make bench; DATABASE_URL to use a database
                                        # of yours, else it makes one and drops it)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.django_setup import setup_django

setup_django("boards")

from django.conf import settings  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client, RequestFactory, override_settings  # noqa: E402
from django.test.client import FakePayload  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from accounts.models import User  # noqa: E402
from bench.sections import DOCS, write_section  # noqa: E402
from games import boards, submissions  # noqa: E402
from games.models import Table  # noqa: E402
from games.rules import get_rules  # noqa: E402
from games.services.tables import table_create, table_join  # noqa: E402

GAMES = {"district-noir": 2, "gnav": 4, "slide": 3, "point-city": 2}
GAMES_PER_KIND = 3
FETCHES = 30
# Open pages besides the seats': the aims (#17) count a spectator at District Noir only.
SPECTATORS = {"district-noir": 1}


def users_for(seats: int) -> list[User]:
    return [
        User.objects.get_or_create(username=f"boards{i}", defaults={"email": f"b{i}@x.org"})[0]
        for i in range(seats)
    ]


def new_table(game: str, users: list[User]) -> Table:
    table = table_create(user=users[0], game=game, num_seats=len(users), seconds_per_move=86400)
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def socket_game(game: str, seats: int, rng: random.Random) -> tuple[list[float], list[float]]:
    """One whole game as live pages play it: every move sent over a socket (``submissions.
    move_submit`` and the mover's changed parts, as the consumer does), then a push to every
    other open page (each seat's and a spectator's, ``boards.changed_since``). CPU ms per
    move for the mover's part and for all the pushes together."""
    users = users_for(seats)
    table = new_table(game, users)
    audiences = [boards.Audience(p, users[p].pk) for p in range(seats)]
    audiences += [boards.Audience(None) for _ in range(SPECTATORS.get(game, 0))]
    pages = [boards.SentParts() for _ in audiences]
    rules, mover_ms, push_ms = get_rules(game), [], []
    while True:
        table.refresh_from_db()
        if not table.is_running:
            return mover_ms, push_ms
        state = rules.from_json(table.state)
        seat = rng.choice(rules.waiting_seats(state) or rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, seat))
        data = {"action": json.dumps(action), "version": str(table.version)}
        started = time.process_time()
        outcome = submissions.move_submit(
            table_id=table.pk, user=users[seat], data=data, origin="x"
        )
        board = boards.board_for(outcome.table, audiences[seat], outcome.seats, state=outcome.state)
        boards.changed_parts(board, pages[seat])
        middle = time.process_time()
        for page, audience in zip(pages, audiences, strict=True):
            if audience is not audiences[seat]:
                boards.changed_since(table.pk, audience, page)
        ended = time.process_time()
        assert not outcome.message, outcome.message
        mover_ms.append((middle - started) * 1000)
        push_ms.append((ended - middle) * 1000)


def play_game(
    game: str, seats: int, rng: random.Random
) -> tuple[list[float], list[int], tuple[int, Client] | None]:
    """One whole game by random legal POSTs: CPU ms and queries of each, and the table."""
    users = users_for(seats)
    table = new_table(game, users)
    clients = {}
    for seat in table.seats.select_related("user"):
        clients[seat.position] = Client()
        clients[seat.position].force_login(seat.user)
    rules, cpu, queries, middle = get_rules(game), [], [], None
    while True:
        table.refresh_from_db()
        if not table.is_running:
            return cpu, queries, middle
        state = rules.from_json(table.state)
        seat = rng.choice(rules.waiting_seats(state) or rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, seat))
        started = time.process_time()
        with CaptureQueriesContext(connection) as captured:
            response = clients[seat].post(
                f"/t/{table.pk}/act/",
                {"action": json.dumps(action), "version": table.version},
                HTTP_HX_REQUEST="true",
            )
        cpu.append((time.process_time() - started) * 1000)
        queries.append(len(captured))
        assert response.status_code == 200, response.status_code
        if middle is None and len(cpu) >= 20:
            middle = (table.pk, clients[seat])


def fetch_cost(table_id: int, client: Client) -> tuple[float, int]:
    """A seat's board fragment, fetched again and again: CPU ms and queries per fetch."""
    url = f"/t/{table_id}/"
    client.get(url, HTTP_HX_REQUEST="true")
    started = time.process_time()
    for _ in range(FETCHES):
        with CaptureQueriesContext(connection) as captured:
            client.get(url, HTTP_HX_REQUEST="true")
    return (time.process_time() - started) * 1000 / FETCHES, len(captured)


def poll_cost(table_id: int, client: Client) -> float:
    """The floor of any signed-in request: CPU ms of an unchanged board poll (a 204).

    Called straight through Django's WSGI handler with the client's session cookie, so
    that the test client's own bookkeeping is not counted: session, user, one query.
    """
    version = Table.objects.values_list("version", flat=True).get(pk=table_id)
    environ = RequestFactory()._base_environ(
        PATH_INFO=f"/t/{table_id}/",
        QUERY_STRING=f"v={version}",
        REQUEST_METHOD="GET",
        HTTP_COOKIE=f"sessionid={client.cookies['sessionid'].value}",
        HTTP_HX_REQUEST="true",
    )
    handler, statuses = WSGIHandler(), []

    def poll() -> None:
        request = {**environ, "wsgi.input": FakePayload(b"")}
        b"".join(handler(request, lambda status, headers: statuses.append(status)))

    poll()
    started = time.process_time()
    for _ in range(FETCHES):
        poll()
    assert set(statuses) == {"204 No Content"}, statuses
    return (time.process_time() - started) * 1000 / FETCHES


def middleware_shares(table_id: int, client: Client) -> list[tuple[str, str]]:
    """Each middleware's own share of the unchanged poll's CPU (and the view's), measured by
    clocks between the middlewares (``bench/middleware_timer.py``)."""
    from bench import middleware_timer

    full = poll_cost(table_id, client)
    middleware = list(settings.MIDDLEWARE)
    with override_settings(MIDDLEWARE=middleware_timer.with_timers(middleware)):
        poll_cost(table_id, client)
        middleware_timer.MARKS.clear()
        poll_cost(table_id, client)
        shares = middleware_timer.shares(len(middleware))
    rows = [(path, f"{ms:.3f}") for path, ms in zip(middleware, shares, strict=False)]
    return [("(the whole poll)", f"{full:.2f}"), *rows, ("(the view)", f"{shares[-1]:.3f}")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma list of games")
    parser.add_argument("--live-only", action="store_true", help="only the socket moves")
    parser.add_argument("--no-write", action="store_true", help="print, leave the docs alone")
    parser.add_argument("--middleware", action="store_true", help="only the middleware shares")
    args = parser.parse_args()
    chosen = {g: GAMES[g] for g in args.games.split(",")}
    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    rng = random.Random(1)
    users = users_for(2)
    table = new_table("district-noir", users)
    client = Client()
    client.force_login(users[0])
    shares = middleware_shares(table.pk, client)
    middleware_rows = ["| middleware | CPU ms of the unchanged poll |", "|---|---|"]
    middleware_rows += [f"| `{path}` | {ms} |" for path, ms in shares]
    print("\n".join(middleware_rows), flush=True)
    if args.middleware:
        return
    table = [
        "| game | players | action POST: CPU ms mean / p95 | queries | board fetch: CPU ms"
        " | unchanged poll (204): CPU ms |",
        "|---|---|---|---|---|---|",
    ]
    print("\n".join(table))
    for game, seats in ({} if args.live_only else chosen).items():
        cpu: list[float] = []
        queries: list[int] = []
        fetch: list[float] = []
        polls: list[float] = []
        fetch_queries = 0
        for _ in range(GAMES_PER_KIND):
            played, counted, middle = play_game(game, seats, rng)
            cpu += played
            queries += counted
            if middle is not None:
                ms, fetch_queries = fetch_cost(*middle)
                fetch.append(ms)
                polls.append(poll_cost(*middle))
        p95 = sorted(cpu)[int(0.95 * len(cpu))]
        table.append(
            f"| {game} | {seats} | {statistics.mean(cpu):.1f} / {p95:.1f} | {min(queries)} to"
            f" {max(queries)} | {statistics.mean(fetch):.1f} ({fetch_queries} queries)"
            f" | {statistics.mean(polls):.1f} |"
        )
        print(table[-1], flush=True)
    live = [
        "| game | open pages | a move over the socket: mover's answer, CPU ms | pushes to the"
        " other pages, CPU ms | web CPU per move, ms (mean / p95) |",
        "|---|---|---|---|---|",
    ]
    print("\n".join(live))
    for game, seats in chosen.items():
        mover: list[float] = []
        pushes: list[float] = []
        for _ in range(GAMES_PER_KIND):
            played, pushed = socket_game(game, seats, rng)
            mover += played
            pushes += pushed
        total = [a + b for a, b in zip(mover, pushes, strict=True)]
        p95 = sorted(total)[int(0.95 * len(total))]
        live.append(
            f"| {game} | {seats} seats + {SPECTATORS.get(game, 0)} spectators"
            f" | {statistics.mean(mover):.1f}"
            f" | {statistics.mean(pushes):.1f} | **{statistics.mean(total):.1f}** / {p95:.1f} |"
        )
        print(live[-1], flush=True)
    section = [
        "### Latest run (written by `bench/boards.py`)",
        "",
        f"`.venv/bin/python bench/boards.py` on {time.strftime('%Y-%m-%d %H:%M', time.gmtime())}"
        f" UTC; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end. CPU"
        " time of the web process per request, in-process; the board fetched once a game is"
        " over, its log at its longest.",
        "",
        *table,
        "",
        "A move as live pages make it (over the socket) and the pushes it causes, in-process:"
        " the CPU the web processes spend on one move, whatever the number of requests.",
        "",
        *live,
        "",
        "Each middleware's own CPU in the unchanged poll (204) of a signed-in player, measured"
        " by clocks between the middlewares (`bench/middleware_timer.py`): the session, the"
        " player's time zone and language come from the cache, so the first middleware that"
        " asks (the time zone's) pays for the session's read.",
        "",
        *middleware_rows,
    ]
    if args.no_write or args.live_only or len(chosen) < len(GAMES):
        return
    write_section(DOCS, "\n".join(section) + "\n", source="bench/boards.py")
    print(f"wrote {DOCS}")


if __name__ == "__main__":
    main()
