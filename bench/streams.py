"""The API's NDJSON streams under load: their memory, and how soon a move reaches the other seat.

It starts a stack of its own (``bench/load/stack.py``: a fresh PostgreSQL database, a private
Redis, a Celery worker, DEBUG off) with ONE uvicorn web process, makes the players and their
tokens, and running District Noir tables, and then:

1. opens ``--streams`` streams at once, each through the API as a program would (httpx, its
   token in the header): most are table streams (``GET /api/stream/tables/{id}``: the players'
   own tables, ``--watchers`` spectators at each played table, and the seats of idle tables),
   the rest account streams (``GET /api/stream/events``, every player's and some idle
   accounts'). The web process's resident memory (``VmRSS``) is read before and once every
   stream has its first line: the difference per stream is what an open stream costs;
2. lets ``--players`` players (two a table, each with a token of its own and an httpx async
   client of its own) play District Noir for ``--seconds`` at each pace of ``--think`` in turn
   (default: 2 s, a human's pace, then 0, as fast as they can), the same streams open: each
   waits on its table's stream for a view where its seat is to act, thinks a random time
   around its pace (half to one and a half times it, as ``bench/load``'s players do), posts a
   random legal action to ``POST /api/tables/{id}/moves`` with that version, and a finished
   game is followed by a new table for the same two (made through the games' service, as a
   challenge's accept would).

For each move it measures the delay from the POST's answer (when the mover has it) to the
``state`` line of that version on the opponent's stream of the table, and from the POST's
sending to that line; it reports their p50/p95/max, the moves per second, and whether the p95
from the answer is within the aim (50 ms). Both ends are timed in this one process, by one
clock. The API's rate limit is lifted for the bench (``API_RATE_PER_MINUTE``): the players
post far more than a person's 300 a minute.

    .venv/bin/python bench/streams.py                      # (part of make bench)
    .venv/bin/python bench/streams.py --think 0 --streams 100 --players 8 --seconds 10 --no-write

It writes its section into docs/benchmarks.md, between its own markers.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import math
import os
import random
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.load.players import player_name  # noqa: E402
from bench.load.stack import Stack, cpu_by_role  # noqa: E402
from bench.load.stats import percentile  # noqa: E402
from bench.sections import DOCS, write_section  # noqa: E402
from tests.support.processes import WIDE_WINDOW, postgres_url  # noqa: E402

SECTION = "bench/streams.py"
GAME = "district-noir"
AIM_MS = 50.0
END = None  # a stream's queue ends with it
OPEN_AT_ONCE = 50  # streams being opened at the same moment
LINE_WAIT = 30.0  # seconds a player waits for its next view before it gives up
STOP_GRACE = 5.0  # seconds a player still waits for a view once the time is up
SETTLE = 1.0  # seconds between two paces: the last moves' lines arrive
PACES = [2.0, 0.0]  # a human's pace (#31's push aims are at 2 s), then as fast as they can


@dataclass
class Account:
    username: str
    user_id: int
    secret: str
    client: httpx.AsyncClient | None = None

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.secret}"}


class Stream:
    """One open stream, read in a task of its own; a player's also keeps its lines."""

    def __init__(self, account: Account, path: str, kind: str, keep: bool = False) -> None:
        self.account, self.path, self.kind = account, path, kind
        self.lines: asyncio.Queue[tuple[float, dict[str, Any]] | None] | None = (
            asyncio.Queue() if keep else None
        )
        self.first = asyncio.Event()
        self.count = 0
        self.status: int | None = None
        self.error = ""
        self.task: asyncio.Task[None] | None = None

    def start(self) -> Stream:
        self.task = asyncio.ensure_future(self.run())
        return self

    async def run(self) -> None:
        assert self.account.client is not None
        try:
            async with self.account.client.stream(
                "GET", self.path, headers=self.account.auth, timeout=httpx.Timeout(60, read=None)
            ) as response:
                self.status = response.status_code
                if response.status_code != 200:
                    self.error = f"{response.status_code} {(await response.aread())[:200]!r}"
                    return
                async for text in response.aiter_lines():
                    if not text:
                        continue
                    at = time.monotonic()
                    self.count += 1
                    if self.lines is not None:
                        self.lines.put_nowait((at, json.loads(text)))
                    self.first.set()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a refused or broken stream: counted, not fatal
            self.error = repr(exc)
        finally:
            self.first.set()
            if self.lines is not None:
                self.lines.put_nowait(END)

    async def close(self) -> None:
        if self.task is not None and not self.task.done():
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


@dataclass
class Player:
    account: Account
    seat: int
    rng: random.Random
    stream: Stream | None = None
    last: tuple[float, dict[str, Any]] | None = None  # the latest view its stream brought


@dataclass
class Pair:
    players: list[Player]
    table_id: int
    watchers: list[Account]
    watching: list[Stream] = field(default_factory=list)


@dataclass
class Record:
    """What the play phase saw: each move's times, each line's arrival, the errors."""

    moves: dict[tuple[int, int], tuple[int, float, float]] = field(default_factory=dict)
    arrivals: dict[tuple[int, int, int], float] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    games: int = 0
    streams_opened: int = 0


# --- the stack and its data ----------------------------------------------------------------


def django_on(stack: Stack) -> None:
    """Django in this process on the stack's database and Redis (its tables and tokens are
    made through the services, whose messages reach the web process through that Redis)."""
    for name in ("DJANGO_SECRET_KEY", "BENCH_STATIC_ROOT", "DJANGO_ALLOWED_HOSTS"):
        os.environ[name] = stack.env[name]
    os.environ.update(
        DATABASE_URL=postgres_url(stack.db),
        REDIS_URL=stack.redis.url,
        DJANGO_SETTINGS_MODULE="bench.settings",
        TASKS_MODE="celery",
    )
    os.environ.pop("REDIS_CACHE_URL", None)
    import django

    django.setup()


def accounts_make(count: int) -> list[Account]:
    from accounts.models import User
    from api.services import token_make

    users = {u.username: u for u in User.objects.filter(username__startswith="bench")}
    made = []
    for index in range(count):
        user = users[player_name(index)]
        _token, secret = token_make(user=user, name="bench", scopes=["read", "play"])
        made.append(Account(user.username, user.pk, secret))
    return made


def table_for(user_ids: list[int]) -> int:
    """A running District Noir table of these players (seat order), as a challenge makes it."""
    from django.db import connection

    from accounts.models import User
    from games.services.tables import table_create_seated

    users = {u.pk: u for u in User.objects.filter(pk__in=user_ids)}
    try:
        table = table_create_seated(
            users=[users[pk] for pk in user_ids], game=GAME, seconds_per_move=86400, rated=False
        )
    finally:
        connection.close()  # back to the pool: this thread may not come again
    return table.pk


@dataclass
class Plan:
    """Which streams to open: (account, path, kind) and the played pairs."""

    pairs: list[Pair]
    idle: list[tuple[Account, str, str]]


def plan_make(args: argparse.Namespace, accounts: list[Account], rng: random.Random) -> Plan:
    players, idle = accounts[: args.players], accounts[args.players :]
    pairs = []
    for k in range(args.players // 2):
        one, two = players[2 * k], players[2 * k + 1]
        table_id = table_for([one.user_id, two.user_id])
        watchers = [idle[(k * args.watchers + w) % len(idle)] for w in range(args.watchers)]
        seated = [Player(one, 0, random.Random(rng.random()))]
        seated.append(Player(two, 1, random.Random(rng.random())))
        pairs.append(Pair(seated, table_id, watchers))
    played_streams = len(pairs) * (2 + args.watchers)  # the players' and watchers' table streams
    accounts_streams = max(args.players, round(args.streams * args.account_share))
    accounts_streams = min(accounts_streams, args.streams - played_streams)
    idle_accounts = max(accounts_streams - args.players, 0)
    idle_tables = max(args.streams - played_streams - accounts_streams, 0)
    planned: list[tuple[Account, str, str]] = [
        (player, "/api/stream/events", "account") for player in players[:accounts_streams]
    ]
    planned += [
        (idle[i % len(idle)], "/api/stream/events", "account") for i in range(idle_accounts)
    ]
    n = len(idle)
    for i in range(math.ceil(idle_tables / 2)):
        one, two = idle[i % n], idle[(i + 1 + (i // n) % (n - 1)) % n]
        table_id = table_for([one.user_id, two.user_id])
        for account in (one, two)[: idle_tables - 2 * i]:
            planned.append((account, f"/api/stream/tables/{table_id}", "idle table"))
    return Plan(pairs, planned)


# --- the web process -----------------------------------------------------------------------


def process_status(pid: int) -> dict[str, int]:
    """The web process's resident memory (KB) and threads, from /proc."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "Threads"):
            found[name] = int(value.split()[0])
    return found


def db_connections(stack: Stack) -> int:
    return int(
        stack.query(
            "select count(*) from pg_stat_activity where datname = current_database()"
            " and pid <> pg_backend_pid()"
        )
    )


# --- the phases ----------------------------------------------------------------------------


async def streams_open(specs: list[tuple[Account, str, str, bool]]) -> list[Stream]:
    """Opens them all (``OPEN_AT_ONCE`` at a time) and waits for each one's first line."""
    gate = asyncio.Semaphore(OPEN_AT_ONCE)
    streams = [Stream(account, path, kind, keep) for account, path, kind, keep in specs]

    async def one(stream: Stream) -> None:
        async with gate:
            stream.start()
            try:
                await asyncio.wait_for(stream.first.wait(), 60)
            except TimeoutError:
                stream.error = stream.error or "no first line in 60 s"

    await asyncio.gather(*(one(stream) for stream in streams))
    return streams


async def play_game(
    player: Player, table_id: int, stop_at: float, think: float, record: Record
) -> bool:
    """This player's game, moved by its stream; whether the game finished."""
    assert player.stream is not None and player.stream.lines is not None
    account = player.account
    assert account.client is not None
    acted = -1
    waited_since = time.monotonic()  # for the next view (pings do not count)
    while True:
        now = time.monotonic()
        give_up = waited_since + LINE_WAIT
        if now >= stop_at:  # the last moves' lines, then no more waiting
            give_up = min(give_up, max(stop_at, waited_since) + STOP_GRACE)
        try:
            item = await asyncio.wait_for(player.stream.lines.get(), max(give_up - now, 0.01))
        except TimeoutError:
            if time.monotonic() < stop_at:
                record.errors[f"no view for {LINE_WAIT:g} s"] += 1
            return False
        if item is END:
            if player.stream.error:
                record.errors[f"stream: {player.stream.error[:80]}"] += 1
            return False
        at, line = item
        if line["type"] not in ("full", "state"):
            continue
        waited_since = time.monotonic()
        player.last = item
        version = line["version"]
        record.arrivals[(table_id, player.seat, version)] = at
        if line["status"] == "finished":
            return True
        view = line["view"]
        if time.monotonic() >= stop_at or version <= acted:
            if time.monotonic() >= stop_at:
                return False
            continue
        if player.seat not in view["active_seats"]:
            continue
        acted = version
        action = player.rng.choice(view["legal_actions"])
        if think:
            await asyncio.sleep(player.rng.uniform(0.5 * think, 1.5 * think))
            if time.monotonic() >= stop_at:
                return False
        sent = time.monotonic()
        try:
            answer = await account.client.post(
                f"/api/tables/{table_id}/moves",
                json={"action": action, "version": version},
                headers=account.auth,
                timeout=30,
            )
        except httpx.HTTPError as exc:
            record.errors[f"post: {exc!r}"[:80]] += 1
            continue
        answered = time.monotonic()
        if answer.status_code != 200:
            record.errors[f"post {answer.status_code}: {answer.text[:60]}"] += 1
            continue
        record.moves[(table_id, answer.json()["version"])] = (player.seat, sent, answered)


async def pair_play(pair: Pair, stop_at: float, think: float, record: Record) -> None:
    """Game after game for these two until the time is up. Once one of them stops (its turn
    came after the time, or its stream failed), so does the other: it would wait for a move
    that will not come."""
    while True:
        games = [
            asyncio.ensure_future(play_game(p, pair.table_id, stop_at, think, record))
            for p in pair.players
        ]
        done, waiting = await asyncio.wait(games, return_when=asyncio.FIRST_COMPLETED)
        if not all(game.result() for game in done):
            for game in waiting:
                game.cancel()
            await asyncio.gather(*waiting, return_exceptions=True)
            return
        results = await asyncio.gather(*games)  # the game's end reaches the other too
        if not all(results):
            return
        record.games += 1
        if time.monotonic() >= stop_at:
            return
        for stream in pair.watching:
            await stream.close()
        table_id = await asyncio.to_thread(
            table_for, [player.account.user_id for player in pair.players]
        )
        pair.table_id = table_id
        path = f"/api/stream/tables/{table_id}"
        for player in pair.players:
            player.stream = Stream(player.account, path, "player table", keep=True).start()
            player.last = None
        pair.watching = [Stream(w, path, "watcher").start() for w in pair.watchers]
        record.streams_opened += 2 + len(pair.watching)


def lines_settled(pairs: list[Pair]) -> None:
    """Between two paces: each player's stream keeps only its latest view, which the next
    pace starts from (the lines of the moves made before are no one's turn any more)."""
    for pair in pairs:
        for player in pair.players:
            assert player.stream is not None and player.stream.lines is not None
            queue, latest, ended = player.stream.lines, player.last, False
            while not queue.empty():
                item = queue.get_nowait()
                if item is END:
                    ended = True
                elif item[1]["type"] in ("full", "state"):
                    latest = item
            if latest is not None:
                queue.put_nowait(latest)
            if ended:
                queue.put_nowait(END)


def delays(record: Record) -> dict[str, Any]:
    """Each move's delays to the opponent's state line of its version (ms)."""
    from_answer, from_send, posts = [], [], []
    missing = 0
    for (table_id, version), (seat, sent, answered) in record.moves.items():
        posts.append(1000 * (answered - sent))
        at = record.arrivals.get((table_id, 1 - seat, version))
        if at is None:
            missing += 1
            continue
        from_answer.append(1000 * (at - answered))
        from_send.append(1000 * (at - sent))

    def spread(values: list[float]) -> dict[str, float]:
        return {
            "p50": round(percentile(values, 50), 1),
            "p95": round(percentile(values, 95), 1),
            "max": round(max(values), 1) if values else float("nan"),
        }

    return {
        "moves": len(record.moves),
        "lines_matched": len(from_answer),
        "missing": missing,
        "before_answer": sum(1 for v in from_answer if v < 0),
        "from_answer_ms": spread(from_answer),
        "from_send_ms": spread(from_send),
        "post_ms": spread(posts),
    }


async def run(args: argparse.Namespace, stack: Stack, plan: Plan, accounts: list[Account]) -> dict:
    web_pid = stack.roles["web"][0]
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    for account in accounts:
        account.client = httpx.AsyncClient(base_url=stack.urls[0], limits=limits)
    figures: dict[str, Any] = {}
    try:
        # Warm up: a request and a stream of each kind, closed, before the first reading.
        first = plan.pairs[0].players[0].account
        assert first.client is not None
        (await first.client.get("/api/account", headers=first.auth)).raise_for_status()
        warm = await streams_open(
            [
                (first, "/api/stream/events", "account", False),
                (first, f"/api/stream/tables/{plan.pairs[0].table_id}", "table", False),
            ]
        )
        for stream in warm:
            await stream.close()
        before = process_status(web_pid)
        figures["db_connections_before"] = db_connections(stack)

        specs: list[tuple[Account, str, str, bool]] = []
        for pair in plan.pairs:
            path = f"/api/stream/tables/{pair.table_id}"
            specs += [(p.account, path, "player table", True) for p in pair.players]
            specs += [(w, path, "watcher", False) for w in pair.watchers]
        specs += [(account, path, kind, False) for account, path, kind in plan.idle]
        started = time.monotonic()
        streams = await streams_open(specs)
        opened_in = time.monotonic() - started
        open_now = process_status(web_pid)
        figures["db_connections_open"] = db_connections(stack)
        failed = [s for s in streams if s.error or s.status != 200]
        kinds = Counter(s.kind for s in streams)
        print(
            f"{len(streams) - len(failed)} of {len(streams)} streams open in {opened_in:.1f} s"
            f" ({dict(kinds)}); RSS {before['VmRSS'] / 1024:.0f} -> "
            f"{open_now['VmRSS'] / 1024:.0f} MB, threads {before['Threads']} -> "
            f"{open_now['Threads']}",
            flush=True,
        )
        for stream in failed[:5]:
            print(f"  failed: {stream.kind} {stream.path}: {stream.error}")
        figures["open"] = {
            "streams": len(streams),
            "failed": len(failed),
            "kinds": dict(kinds),
            "seconds": round(opened_in, 1),
            "rss_mb_before": round(before["VmRSS"] / 1024, 1),
            "rss_mb_open": round(open_now["VmRSS"] / 1024, 1),
            "kb_per_stream": round(
                (open_now["VmRSS"] - before["VmRSS"]) / max(len(streams) - len(failed), 1)
            ),
            "threads_before": before["Threads"],
            "threads_open": open_now["Threads"],
        }

        if any(s.kind == "player table" for s in failed):
            raise RuntimeError("a player's table stream did not open: nothing to measure")
        by_path = {(s.account.username, s.path): s for s in streams if s.kind == "player table"}
        for pair in plan.pairs:
            for player in pair.players:
                player.stream = by_path[
                    (player.account.username, f"/api/stream/tables/{pair.table_id}")
                ]
            pair.watching = [
                s for s in streams if s.kind == "watcher" and s.path.endswith(f"/{pair.table_id}")
            ]

        idle_cpu = cpu_by_role(stack.roles, stack.db)["web"]
        idle_started = time.monotonic()
        await asyncio.sleep(args.idle_seconds)  # the streams open, nothing moving
        figures["open"]["web_cpu_idle"] = round(
            (cpu_by_role(stack.roles, stack.db)["web"] - idle_cpu)
            / (time.monotonic() - idle_started),
            3,
        )

        figures["plays"] = []
        for think in args.think:
            if figures["plays"]:
                await asyncio.sleep(SETTLE)
                lines_settled(plan.pairs)
            figures["plays"].append(await play(args, stack, plan, think))
            print(f"pace {think:g} s: {json.dumps(figures['plays'][-1])}", flush=True)
        figures["db_connections_play"] = db_connections(stack)
        every = streams + [p.stream for pair in plan.pairs for p in pair.players if p.stream]
        every += [s for pair in plan.pairs for s in pair.watching]
        for stream in every:
            await stream.close()
    finally:
        for account in accounts:
            if account.client is not None:
                await account.client.aclose()
    return figures


async def play(args: argparse.Namespace, stack: Stack, plan: Plan, think: float) -> dict:
    """One pace: every pair plays for ``--seconds``; its figures."""
    web_pid = stack.roles["web"][0]
    record = Record()
    spy = profile_start(args, web_pid, think)
    cpu_before = cpu_by_role(stack.roles, stack.db)
    started = time.monotonic()
    await asyncio.gather(
        *(pair_play(pair, started + args.seconds, think, record) for pair in plan.pairs)
    )
    elapsed = time.monotonic() - started
    cpu_after = cpu_by_role(stack.roles, stack.db)
    if spy is not None:
        spy.wait(60)
    played = process_status(web_pid)
    return {
        "think": think,
        "load_before": round(os.getloadavg()[0], 1),
        "seconds": round(elapsed, 1),
        "games": record.games,
        "moves_per_s": round(len(record.moves) / elapsed, 1),
        "errors": dict(record.errors),
        "streams_reopened": record.streams_opened,
        "rss_mb_after": round(played["VmRSS"] / 1024, 1),
        "threads_after": played["Threads"],
        "cpu_ms_per_move": {
            role: round(1000 * (cpu_after[role] - cpu_before[role]) / max(len(record.moves), 1), 2)
            for role in cpu_after
        },
        "cpu_share": {
            role: round((cpu_after[role] - cpu_before[role]) / elapsed, 2) for role in cpu_after
        },
        **delays(record),
    }


# --- where the web process's time goes (optional) ---


def profile_path(args: argparse.Namespace, think: float) -> str:
    """One profile a pace: ``--profile-out`` with the pace before its suffix."""
    path = Path(args.profile_out)
    return str(path.with_name(f"{path.stem}-think{think:g}{path.suffix}"))


def profile_start(args: argparse.Namespace, pid: int, think: float) -> subprocess.Popen | None:
    """py-spy (``--py-spy``, not a dependency of the project) sampling the web process while
    the players play, only the samples that hold the GIL (the process is bound by it)."""
    if not args.py_spy:
        return None
    command = [args.py_spy, "record", "--pid", str(pid), "--gil", "--rate", "200"]
    command += ["--duration", str(max(int(args.seconds) - 1, 1)), "--format", "raw"]
    command += ["--output", profile_path(args, think), "--nonblocking"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def profile_summary(path: str, top: int = 30) -> list[str]:
    """From py-spy's collapsed stacks: the share of samples under each frame of ours and of
    the libraries' main parts (inclusive), and the hottest leaves (self)."""
    inclusive: Counter[str] = Counter()
    leaves: Counter[str] = Counter()
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [frame.split(" (")[0] + " " + _where(frame) for frame in stack.split(";")]
        for frame in set(frames):
            inclusive[frame] += n
        leaves[frames[-1]] += n
    rows = [f"{total} samples holding the GIL; inclusive share of the frames:"]
    rows += [f"  {100 * n / total:5.1f}%  {frame}" for frame, n in inclusive.most_common(top)]
    rows += ["self share of the leaves:"]
    rows += [f"  {100 * n / total:5.1f}%  {frame}" for frame, n in leaves.most_common(top)]
    return rows


def _where(frame: str) -> str:
    inside = frame.partition(" (")[2].rstrip(")")
    file, _, _line = inside.rpartition(":")
    return file.split("site-packages/")[-1].replace(str(ROOT) + "/", "")


# --- the report ----------------------------------------------------------------------------


def pace_name(think: float) -> str:
    return f"thinking {think:g} s a move" if think else "as fast as they can"


def markdown(figures: dict, command: str) -> str:
    opened, plays = figures["open"], figures["plays"]
    kinds = ", ".join(f"{n} {kind}" for kind, n in opened["kinds"].items())
    last = plays[-1]
    lines = [
        "### API streams (written by `bench/streams.py`)",
        "",
        f"`{command}` on {figures['when']} UTC, {os.cpu_count()} CPUs, load average"
        f" {figures['load_before']:.1f} before. One uvicorn web process (DEBUG off, its"
        " database pool of 8), a Celery worker, PostgreSQL, a private Redis; the load"
        " generator (httpx, one async client a player) on the same machine.",
        "",
        f"**Memory.** {opened['streams'] - opened['failed']} of {opened['streams']} streams"
        f" open ({kinds}) in {opened['seconds']} s: the web process's RSS"
        f" {opened['rss_mb_before']} MB before, {opened['rss_mb_open']} MB with them open:"
        f" **{opened['kb_per_stream']} KB a stream**; its threads {opened['threads_before']}"
        f" -> {opened['threads_open']}; PostgreSQL connections of the stack"
        f" {figures['db_connections_before']} -> {figures['db_connections_open']}."
        f" After the play: {last['rss_mb_after']} MB, {last['threads_after']} threads."
        f" Open and idle, the streams kept the web process {opened['web_cpu_idle']} of a"
        " core busy (pings, token checks, catch-up reads).",
        "",
        f"**Moves to the other seat's stream.** {figures['players']} players at"
        f" {figures['players'] // 2} tables, at each pace in turn for {figures['seconds']:g} s,"
        " the same streams open; the delay from the POST's answer (when the mover has it) to"
        " the `state` line of that version on the opponent's stream, and from the POST's"
        " sending; a player's thinking comes before its POST, outside both.",
        "",
        "| pace | load | moves/s | from the answer p50 / p95 / max ms | from the sending"
        " p50 / p95 ms | the POST p50 / p95 ms | web CPU a move ms | web busy | aim |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for play in plays:
        answer, send, post = play["from_answer_ms"], play["from_send_ms"], play["post_ms"]
        aim = "met" if answer["p95"] <= AIM_MS else "missed"
        lines.append(
            f"| {pace_name(play['think'])} | {play['load_before']} | {play['moves_per_s']}"
            f" | {answer['p50']} / **{answer['p95']}** / {answer['max']}"
            f" | {send['p50']} / {send['p95']} | {post['p50']} / {post['p95']}"
            f" | {play['cpu_ms_per_move']['web']} | {play['cpu_share']['web']} | {aim} |"
        )
    lines.append("")
    for play in plays:
        cpu = ", ".join(f"{role} {ms}" for role, ms in play["cpu_ms_per_move"].items())
        share = ", ".join(f"{role} {s}" for role, s in play["cpu_share"].items())
        lines.append(
            f"- {pace_name(play['think']).capitalize()}: {play['moves']} moves in"
            f" {play['seconds']} s, {play['games']} games finished, errors"
            f" {play['errors'] or 'none'}; {play['lines_matched']} moves matched to the"
            f" opponent's line of their version ({play['missing']} not: the stream sends the"
            f" table as it is when it reads, which may be a later version),"
            f" {play['before_answer']} lines before the mover had its answer (a negative"
            f" delay). CPU ms a move: {cpu}; cores busy: {share}."
        )
    lines += [
        "",
        f"The aim, p95 from the answer at most {AIM_MS:.0f} ms with {figures['players']}"
        f" players and {opened['streams']} streams open on one web process, at a human's pace:"
        f" **{_aim(plays)}**.",
    ]
    return "\n".join(lines)


def _aim(plays: list[dict]) -> str:
    human = [play for play in plays if play["think"]]
    if not human:
        return "not measured (no pace with thinking time)"
    met = all(play["from_answer_ms"]["p95"] <= AIM_MS for play in human)
    return "met" if met else "missed"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=500, help="streams open at once")
    parser.add_argument("--players", type=int, default=32, help="players, two a table")
    parser.add_argument("--seconds", type=float, default=30, help="time they play at a pace")
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        default=PACES,
        metavar="SECONDS",
        help="each pace in turn: a player's thinking time before a move, on average (0: none)",
    )
    parser.add_argument(
        "--account-share", type=float, default=0.1, help="of the streams, account streams"
    )
    parser.add_argument("--watchers", type=int, default=2, help="spectators' streams a table")
    parser.add_argument(
        "--idle-users", type=int, default=40, help="accounts seated at the idle tables"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", default=str(DOCS))
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--keep-logs", action="store_true")
    parser.add_argument(
        "--idle-seconds", type=float, default=5, help="the streams open, nothing moving"
    )
    parser.add_argument("--py-spy", default="", help="py-spy's path: profile the play")
    parser.add_argument("--profile-out", default="/tmp/bench-streams-profile.txt")
    args = parser.parse_args()
    if args.players < 2 or args.players % 2:
        parser.error("--players: an even number, at least 2")
    if args.idle_users < 2:
        parser.error("--idle-users: at least 2")
    if any(think < 0 for think in args.think):
        parser.error("--think: seconds, 0 or more")
    return args


def main() -> None:
    args = parse_args()
    command = " ".join([".venv/bin/python bench/streams.py", *sys.argv[1:]])
    os.environ["API_RATE_PER_MINUTE"] = "100000000"  # the stack's processes inherit it
    figures: dict[str, Any] = {
        "when": f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M}",
        "load_before": os.getloadavg()[0],
        "players": args.players,
        "seconds": args.seconds,
    }
    stack = Stack("uvicorn", 1, args.players + args.idle_users, args.keep_logs, WIDE_WINDOW)
    try:
        stack.start()
        print(f"stack up: {stack.urls[0]}, database {stack.db}", flush=True)
        django_on(stack)
        started = time.monotonic()
        accounts = accounts_make(args.players + args.idle_users)
        plan = plan_make(args, accounts, random.Random(args.seed))
        print(f"tables and tokens made in {time.monotonic() - started:.0f} s", flush=True)
        figures.update(asyncio.run(run(args, stack, plan, accounts)))
    finally:
        stack.stop()
    figures["load_after"] = os.getloadavg()[0]
    print(json.dumps(figures, indent=2))
    section = markdown(figures, command)
    print(section)
    for think in args.think if args.py_spy else []:
        path = profile_path(args, think)
        if Path(path).exists():
            print(f"\n{pace_name(think)}: {path}")
            print("\n".join(profile_summary(path)))
    if not args.no_write:
        write_section(Path(args.out), section, SECTION)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
