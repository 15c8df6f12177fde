"""Open table pages on ONE web process: what each costs in memory, and how soon a move reaches
them all.

It starts a stack of its own (``bench/load/stack.py``: a fresh PostgreSQL database, a private
Redis, a Celery worker, DEBUG off) with ONE uvicorn web process, and then, for each count of
``--pages`` in turn:

1. makes ``--tables`` running District Noir tables, two players each (``table_for``, as a
   challenge makes them);
2. opens that many table pages, spread evenly over those tables: each a websocket to the
   table's socket (``/ws/t/<id>/?page=<id>``, ``games/live/consumers.py``) as an anonymous
   spectator, offering permessage-deflate as browsers do, and saying at once which version it
   shows (``{"hello": <version>, "digest": ""}``): the current one, so the server has nothing
   to send it until the next move. ``OPEN_AT_ONCE`` are connecting at the same moment. The web
   process's resident memory (``VmRSS``) and threads are read before, and after they are all
   open and ``--quiet`` seconds of quiet: the difference per page is what an idle open page
   costs;
3. plays ``--rate`` moves a second for ``--seconds``, round-robin over the tables, each a
   random legal move of the seat to act, through ``games.services.moves.move_play`` in this
   process (in a thread): its on-commit broadcast reaches the web process through the stack's
   Redis channel layer. A table whose game ends is left out of the round-robin (no page
   follows a new table). A move's time is when ``move_play`` returns; each page of its table
   notes when the first message naming the new version (``data-version="<V>"``, found by a
   bytes search: no parsing) arrives. The delay is the difference (it may be slightly negative:
   the broadcast goes on commit, just before ``move_play`` returns). A push counts as received
   if it came within ``PUSH_WAIT`` seconds;
4. closes the pages.

Both ends are timed in this one process, by one clock; this process reads every push itself
(its own CPU is reported beside the web process's).

    .venv/bin/python bench/pages.py                      # (part of make bench)
    .venv/bin/python bench/pages.py --pages 200 --tables 2 --seconds 5 --no-write

It writes its section into docs/benchmarks.md, between its own markers.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import math
import os
import random
import secrets
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection
from websockets.typing import Origin

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load.players import player_name  # noqa: E402
from bench.load.stack import Stack, cpu_by_role  # noqa: E402
from bench.load.stats import percentile  # noqa: E402
from bench.sections import DOCS, write_section  # noqa: E402
from bench.streams import django_on, process_status, table_for  # noqa: E402
from tests.support.processes import WIDE_WINDOW  # noqa: E402

SECTION = "bench/pages.py"
MEMORY_AIM_KB = 64.0  # an idle open page
PUSH_AIM_MS = 100.0  # p95, to 1,000 pages at one move a second
PUSH_AIM_PAGES = 1000
OPEN_AT_ONCE = 100  # pages connecting at the same moment
OPEN_TIMEOUT = 60.0
PUSH_WAIT = 10.0  # seconds after its move within which a push counts as received
MARK = b'data-version="'


@dataclass
class Table:
    table_id: int
    version: int
    running: bool = True


@dataclass
class Move:
    table_id: int
    version: int
    at: float  # time.monotonic() when move_play returned


class Page:
    """One open table page: its socket, read in a task of its own for the versions it is sent."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.arrivals: dict[int, float] = {}  # version -> first message naming it
        self.error = ""
        self.extensions = ""  # the server's Sec-WebSocket-Extensions answer
        self.opened = False
        self.ws: ClientConnection | None = None
        self.task: asyncio.Task[None] | None = None

    async def open(self, base_url: str, gate: asyncio.Semaphore) -> None:
        ws_url = base_url.replace("http://", "ws://")
        url = f"{ws_url}/ws/t/{self.table.table_id}/?page={secrets.token_hex(8)}"
        async with gate:
            try:
                self.ws = await websockets.connect(
                    url,
                    origin=Origin(base_url),
                    compression="deflate",
                    ping_interval=None,  # as a browser: the server pings, the page answers
                    open_timeout=OPEN_TIMEOUT,
                    close_timeout=5,
                    proxy=None,
                )
                assert self.ws.response is not None
                self.extensions = self.ws.response.headers.get("Sec-WebSocket-Extensions", "")
                await self.ws.send(json.dumps({"hello": self.table.version, "digest": ""}))
            except Exception as exc:  # a refused socket: counted, not fatal
                self.error = f"open: {exc!r}"[:120]
                return
        self.opened = True
        self.task = asyncio.ensure_future(self.read())

    async def read(self) -> None:
        assert self.ws is not None
        try:
            while True:
                data = await self.ws.recv(decode=False)
                at = time.monotonic()
                assert isinstance(data, bytes)
                self.note(data, at)
        except websockets.ConnectionClosed as exc:
            if not self.error:
                self.error = f"closed: {exc.rcvd.code if exc.rcvd else 'dropped'}"

    def note(self, data: bytes, at: float) -> None:
        """The versions this message names (``data-version="<V>"``), first arrivals kept."""
        start = data.find(MARK)
        while start >= 0:
            start += len(MARK)
            end = data.find(b'"', start)
            if end < 0:
                return
            with contextlib.suppress(ValueError):
                self.arrivals.setdefault(int(data[start:end]), at)
            start = data.find(MARK, end)

    async def close(self) -> None:
        self.error = self.error or "closed by the bench"
        if self.ws is not None:
            await self.ws.close()
        if self.task is not None:
            await asyncio.gather(self.task, return_exceptions=True)


# --- the tables and the moves (Django, in threads) ------------------------------------------


def tables_make(count: int) -> list[Table]:
    """``count`` running District Noir tables, players 2k and 2k+1 at the k-th."""
    from django.db import connection

    from accounts.models import User
    from games.models import Table as TableRow

    names = [player_name(index) for index in range(2 * count)]
    ids = dict(User.objects.filter(username__in=names).values_list("username", "pk"))
    made = [table_for([ids[names[2 * k]], ids[names[2 * k + 1]]]) for k in range(count)]
    versions = dict(TableRow.objects.filter(pk__in=made).values_list("pk", "version"))
    connection.close()
    return [Table(pk, versions[pk]) for pk in made]


def move_random(table_id: int, rng: random.Random) -> tuple[Move | None, bool]:
    """A random legal move of the seat to act: (the move, whether the game still runs)."""
    from django.db import connection

    from games.models import Seat
    from games.models import Table as TableRow
    from games.rules import get_rules
    from games.services.moves import move_play

    try:
        table = TableRow.objects.get(pk=table_id)
        if not table.is_running:
            return None, False
        assert table.state is not None  # a running table's
        rules = get_rules(table.game)
        state = rules.from_json(table.state)
        position = rng.choice(rules.waiting_seats(state) or rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, position))
        user = Seat.objects.select_related("user").get(table=table, position=position).user
        assert user is not None  # the bench's players, no bots
        result = move_play(table_id=table_id, user=user, action=action, version=table.version)
        at = time.monotonic()
        return Move(table_id, result.table.version, at), result.table.is_running
    finally:
        connection.close()  # back to the pool: this thread may not come again


async def drive(
    tables: list[Table], rate: float, seconds: float, rng: random.Random
) -> tuple[list[Move], Counter[str]]:
    """``rate`` moves a second for ``seconds``, round-robin over the running tables."""
    moves: list[Move] = []
    errors: Counter[str] = Counter()
    started = time.monotonic()
    turn = 0
    while time.monotonic() - started < seconds:
        running = [table for table in tables if table.running]
        if not running:
            errors["every game finished"] += 1
            break
        table = running[turn % len(running)]
        turn += 1
        try:
            move, still = await asyncio.to_thread(move_random, table.table_id, rng)
        except Exception as exc:  # a refused move: counted, the next table's turn
            errors[f"move: {exc!r}"[:80]] += 1
            move, still = None, table.running
        if move is not None:
            moves.append(move)
        if not still:
            table.running = False
            errors["games finished (their tables left out)"] += 1
        wait = started + turn / rate - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
    return moves, errors


# --- one count of pages -----------------------------------------------------------------------


async def pages_open(pages: list[Page], base_url: str) -> float:
    gate = asyncio.Semaphore(OPEN_AT_ONCE)
    started = time.monotonic()
    await asyncio.gather(*(page.open(base_url, gate) for page in pages))
    return time.monotonic() - started


async def pages_close(pages: list[Page]) -> None:
    for start in range(0, len(pages), OPEN_AT_ONCE):
        await asyncio.gather(*(page.close() for page in pages[start : start + OPEN_AT_ONCE]))


def pages_by_table(pages: list[Page]) -> dict[int, list[Page]]:
    """The open pages of each table."""
    found: dict[int, list[Page]] = {}
    for page in pages:
        if page.opened:
            found.setdefault(page.table.table_id, []).append(page)
    return found


async def pushes_wait(moves: list[Move], pages: list[Page]) -> None:
    """Until every open page has each move's version, or ``PUSH_WAIT`` after the last move."""
    if not moves:
        return
    by_table = pages_by_table(pages)
    wanted = [(move.version, page) for move in moves for page in by_table.get(move.table_id, [])]
    deadline = moves[-1].at + PUSH_WAIT
    while time.monotonic() < deadline:
        if all(version in page.arrivals for version, page in wanted):
            return
        await asyncio.sleep(0.2)


def push_figures(moves: list[Move], pages: list[Page]) -> dict[str, Any]:
    """Per move, each open page of its table: the delay to the first message of its version."""
    by_table = pages_by_table(pages)
    delays: list[float] = []
    spans: list[list[float]] = []  # each move's first and last page's delay
    expected = 0
    for move in moves:
        mine = []
        for page in by_table.get(move.table_id, []):
            expected += 1
            at = page.arrivals.get(move.version)
            if at is not None and at - move.at <= PUSH_WAIT:
                mine.append(1000 * (at - move.at))
        delays += mine
        spans.append([round(min(mine), 1), round(max(mine), 1)] if mine else [math.nan])
    return {
        "moves": len(moves),
        "expected": expected,
        "received": len(delays),
        "p50_ms": round(percentile(delays, 50), 1),
        "p95_ms": round(percentile(delays, 95), 1),
        "max_ms": round(max(delays), 1) if delays else float("nan"),
        "negative": sum(1 for d in delays if d < 0),
        "first_last_ms_by_move": spans,
    }


async def warm_up(table: Table, base_url: str, rng: random.Random) -> None:
    """A page of the first table, and a move pushed to it: the first socket's and the first
    push's imports, templates and paths, before anything is measured."""
    warm = Page(table)
    await warm.open(base_url, asyncio.Semaphore(1))
    move, _running = await asyncio.to_thread(move_random, table.table_id, rng)
    if move is not None:
        table.version = move.version
        await pushes_wait([move], [warm])
    await warm.close()
    await asyncio.sleep(1)


async def one_count(args: argparse.Namespace, stack: Stack, count: int, seed: int) -> dict:
    web_pid = stack.roles["web"][0]
    base_url = stack.urls[0]
    tables = await asyncio.to_thread(tables_make, args.tables)
    await warm_up(tables[0], base_url, random.Random(seed))
    before = process_status(web_pid)

    pages = [Page(tables[i % len(tables)]) for i in range(count)]
    opened_in = await pages_open(pages, base_url)
    failed = [page for page in pages if not page.opened]
    idle_cpu, idle_started = cpu_by_role(stack.roles, stack.db)["web"], time.monotonic()
    await asyncio.sleep(args.quiet)
    idle_share = (cpu_by_role(stack.roles, stack.db)["web"] - idle_cpu) / (
        time.monotonic() - idle_started
    )
    opened = process_status(web_pid)
    held = count - len(failed)
    dropped = [page for page in pages if page.opened and page.error]
    print(
        f"{count} pages: {held} open in {opened_in:.1f} s ({len(failed)} failed,"
        f" {len(dropped)} closed since); web RSS {before['VmRSS'] / 1024:.0f} ->"
        f" {opened['VmRSS'] / 1024:.0f} MB,"
        f" {(opened['VmRSS'] - before['VmRSS']) / max(held, 1):.1f} KB a page; threads"
        f" {before['Threads']} -> {opened['Threads']}; web CPU idle {idle_share:.3f} of a core;"
        f" this process {process_status(os.getpid())['VmRSS'] / 1024:.0f} MB",
        flush=True,
    )
    for what, n in Counter(page.error for page in failed + dropped).most_common(5):
        print(f"  {n} x {what}")
    agreed = Counter(page.extensions or "none" for page in pages if page.opened)
    print(f"  extensions agreed: {dict(agreed)}", flush=True)

    cpu_before = cpu_by_role(stack.roles, stack.db)
    started = time.monotonic()
    moves, errors = await drive(tables, args.rate, args.seconds, random.Random(seed))
    driven = time.monotonic() - started
    await pushes_wait(moves, pages)
    elapsed = time.monotonic() - started
    cpu_after = cpu_by_role(stack.roles, stack.db)
    pushes = push_figures(moves, pages)
    web_cpu = cpu_after["web"] - cpu_before["web"]
    bench_cpu = cpu_after["load generator"] - cpu_before["load generator"]
    closed_during = sum(1 for page in pages if page.opened and page.error) - len(dropped)
    figures = {
        "pages": count,
        "open": held,
        "failed": len(failed),
        "failures": dict(Counter(page.error for page in failed)),
        "open_seconds": round(opened_in, 1),
        "rss_mb_before": round(before["VmRSS"] / 1024, 1),
        "rss_mb_open": round(opened["VmRSS"] / 1024, 1),
        "kb_per_page": round((opened["VmRSS"] - before["VmRSS"]) / max(held, 1), 1),
        "threads_before": before["Threads"],
        "threads_open": opened["Threads"],
        "extensions": dict(agreed),
        "web_cpu_idle": round(idle_share, 3),
        "move_seconds": round(driven, 1),
        "errors": dict(errors),
        "closed_during_pushes": closed_during,
        **pushes,
        "web_cpu_share": round(web_cpu / elapsed, 3),
        "web_cpu_ms_per_move": round(1000 * web_cpu / max(len(moves), 1), 1),
        "bench_cpu_ms_per_move": round(1000 * bench_cpu / max(len(moves), 1), 1),
    }
    print(
        f"  {len(moves)} moves in {driven:.1f} s ({dict(errors) or 'no errors'}): pushes"
        f" {pushes['received']}/{pushes['expected']} within {PUSH_WAIT:.0f} s, delay p50"
        f" {pushes['p50_ms']} / p95 {pushes['p95_ms']} / max {pushes['max_ms']} ms"
        f" ({pushes['negative']} negative); web CPU {figures['web_cpu_share']} of a core,"
        f" {figures['web_cpu_ms_per_move']} ms a move; this process"
        f" {figures['bench_cpu_ms_per_move']} ms a move",
        flush=True,
    )
    spans = " ".join(f"{span[0]:.0f}-{span[-1]:.0f}" for span in pushes["first_last_ms_by_move"])
    print(f"  each move, its first and last page's delay ms: {spans}", flush=True)
    await pages_close(pages)
    await asyncio.sleep(2)  # their disconnects handled before the next reading
    after = process_status(web_pid)
    figures["rss_mb_closed"] = round(after["VmRSS"] / 1024, 1)
    figures["threads_closed"] = after["Threads"]
    print(f"  closed: web RSS {figures['rss_mb_closed']} MB, threads {after['Threads']}")
    return figures


async def run(args: argparse.Namespace, stack: Stack) -> list[dict]:
    rows = []
    for index, count in enumerate(args.pages):
        rows.append(await one_count(args, stack, count, args.seed + index))
    return rows


# --- the report -------------------------------------------------------------------------------


def aims(rows: list[dict], rate: float) -> tuple[str, str]:
    memory = "met" if all(row["kb_per_page"] <= MEMORY_AIM_KB for row in rows) else "missed"
    at_aim = [row for row in rows if row["pages"] == PUSH_AIM_PAGES]
    if not at_aim or rate != 1:
        push = "not measured (no run of 1,000 pages at one move a second)"
    else:
        push = "met" if at_aim[0]["p95_ms"] <= PUSH_AIM_MS else "missed"
    return memory, push


def markdown(figures: dict, command: str) -> str:
    rows, args = figures["rows"], figures["args"]
    memory, push = aims(rows, args["rate"])
    table = [
        "| pages open (failed) | web RSS before → open MB | KB per open page | threads"
        " | push delay p50 / p95 / max ms | pushes received / expected | web CPU ms per move |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        table.append(
            f"| {row['open']:,} ({row['failed']}) | {row['rss_mb_before']} →"
            f" {row['rss_mb_open']} | {row['kb_per_page']} | {row['threads_before']} →"
            f" {row['threads_open']} | {row['p50_ms']} / {row['p95_ms']} / {row['max_ms']}"
            f" | {row['received']:,} / {row['expected']:,} | {row['web_cpu_ms_per_move']} |"
        )
    errors = Counter[str]()
    for row in rows:
        errors.update(row["errors"])
    return "\n".join(
        [
            "### Open table pages on one web process (bench/pages.py)",
            "",
            f"`{command}` on {figures['when']} UTC, {os.cpu_count()} CPUs, load average"
            f" {figures['load_before']:.1f} before. One uvicorn web process (DEBUG off), a"
            " Celery worker, PostgreSQL, a private Redis; the pages (asyncio `websockets`"
            " clients, in the bench's one process) on the same machine.",
            "",
            f"For each count, running District Noir tables ({args['tables']}), the pages spread"
            " evenly over them: each a websocket to its table's socket as an anonymous"
            " spectator (permessage-deflate offered, as a browser does), saying at once that it"
            " shows the current version, so that nothing is sent it until a move. The web"
            " process's RSS is read before they open and after they are all open and"
            f" {args['quiet']:.0f} s of quiet: the difference per page is an idle open page's"
            f" cost. Then moves, {args['rate']:g} a second for {args['seconds']:.0f} s, round-robin"
            " over the tables (a random legal move through `move_play` in the bench process;"
            " a table whose game ends is left out): each page of the moved table notes when the"
            " first message naming the new version (`data-version`) arrives; the delay is from"
            " `move_play`'s return (slightly negative when the push beats it: it goes on"
            f" commit). A push counts if it came within {PUSH_WAIT:.0f} s."
            f" The moves' errors and ends: {dict(errors) or 'none'}.",
            "",
            *table,
            "",
            f"Aims: at most {MEMORY_AIM_KB:.0f} KB per idle open page: **{memory}**; push p95"
            f" at most {PUSH_AIM_MS:.0f} ms to 1,000 pages at one move a second: **{push}**.",
        ]
    )


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--pages", default="1000,5000", help="counts of pages open at once, comma-separated"
    )
    parser.add_argument("--tables", type=int, default=10, help="tables the pages watch")
    parser.add_argument("--seconds", type=float, default=30, help="time the moves go on")
    parser.add_argument("--rate", type=float, default=1, help="moves a second")
    parser.add_argument("--quiet", type=float, default=5, help="seconds open before reading")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=str(DOCS))
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--keep-logs", action="store_true")
    args = parser.parse_args()
    try:
        args.pages = [int(count) for count in args.pages.split(",") if count.strip()]
    except ValueError:
        parser.error("--pages: whole numbers, comma-separated")
    if not args.pages or min(args.pages) < 1:
        parser.error("--pages: at least one count, each at least 1")
    if args.tables < 1 or args.rate <= 0:
        parser.error("--tables: at least 1; --rate: more than 0")
    return args


def main() -> None:
    args = parse_args()
    command = " ".join([".venv/bin/python bench/pages.py", *sys.argv[1:]])
    figures: dict[str, Any] = {
        "when": f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M}",
        "load_before": os.getloadavg()[0],
        "args": {k: getattr(args, k) for k in ("tables", "seconds", "rate", "quiet")},
    }
    stack = Stack("uvicorn", 1, 2 * args.tables, args.keep_logs, WIDE_WINDOW)
    try:
        stack.start()
        print(f"stack up: {stack.urls[0]}, database {stack.db}", flush=True)
        django_on(stack)
        figures["rows"] = asyncio.run(run(args, stack))
    finally:
        stack.stop()
    figures["load_after"] = os.getloadavg()[0]
    print(json.dumps(figures))
    section = markdown(figures, command)
    print(section)
    if not args.no_write:
        write_section(Path(args.out), section, SECTION)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
