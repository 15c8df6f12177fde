"""Load bench: N signed-in players play whole games through HTTP, as their browsers would.

It starts a production-style stack of its own (a fresh PostgreSQL database, a
private Redis, uvicorn with two worker processes (or daphne, ``--server``), a
Celery worker; DEBUG off, the manifest static files that whitenoise serves),
signs every player in through the sign-in form, and then, for each N, seats N
players at tables of every game and lets them play random legal moves for a
bounded time, as a live page does (``--live``, the default):

- each player's page keeps the table's websocket open and names itself (``?page=``);
  every change arrives pushed, as this seat's new board; a safety poll every 30 s;
- a player whose turn it is clicks one of the board's action buttons: a POST with
  ``action`` and ``version``, headers ``HX-Request``, ``X-CSRFToken`` and ``X-Page``;
  the answer is the new board (its own socket is spared the same board).

With ``--no-live`` the pages poll ``/t/<id>/?v=<version>`` every ``--poll`` seconds
instead (the fallback when the websocket is down). ``--think`` adds a player's
thinking time before each move.

It prints actions per second, latency percentiles per kind of request ("push": from
a move's post to another seat's socket receiving its board), the errors (5xx and
failed connections), the CPU milliseconds per action of each part of the stack,
the bytes of a table page's first load and of the board fragment per move, and
pgbench's rate for a move-shaped transaction on the same PostgreSQL (the
machine's ceiling for moves).

    .venv/bin/python bench/load.py --players 8,32,128 --seconds 40
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.sections import DOCS, write_section

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PASSWORD = "a bench pass phrase, 7781"
PG_HOST = os.environ.get("PGHOST", "127.0.0.1")
PG_PORT = os.environ.get("PGPORT", "5432")
PG_USER = os.environ.get("PGUSER", "postgres")
PG_ARGS = ["-h", PG_HOST, "-p", PG_PORT, "-U", PG_USER]
# (game, seats): one table of each, over and over, in this order.
GAMES = [("gnav", 4), ("slide", 3), ("district-noir", 2), ("point-city", 2)]
DONE = {"finished", "aborted"}
PGBENCH_SCRIPT = """\\set id random(1, 1000)
BEGIN;
SELECT version FROM bench_row WHERE id = :id FOR UPDATE;
UPDATE bench_row SET version = version + 1, state = md5(random()::text) || substr(state, 33)
  WHERE id = :id;
INSERT INTO bench_log (row_id, version, action) VALUES (:id, 1, '{"type": "play", "card": 17}');
COMMIT;
"""
PGBENCH_SETUP = """
CREATE TABLE bench_row (id int PRIMARY KEY, version int NOT NULL, state text NOT NULL);
CREATE TABLE bench_log (id bigserial PRIMARY KEY, row_id int NOT NULL, version int NOT NULL,
                        action text NOT NULL, at timestamptz NOT NULL DEFAULT now());
INSERT INTO bench_row SELECT g, 0, repeat('x', 2000) FROM generate_series(1, 1000) g;
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing answers on port {port}")


def cpu_by_role(roles: dict[str, list[int]]) -> dict[str, float]:
    """CPU seconds used so far by each role's processes and all their children, by
    PostgreSQL (every ``postgres`` process) and by this load generator."""
    ticks = os.sysconf("SC_CLK_TCK")
    procs: dict[int, tuple[int, str, float]] = {}  # pid -> (parent, name, cpu seconds)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        procs[int(entry)] = (int(fields[1]), name, (int(fields[11]) + int(fields[12])) / ticks)
    children: dict[int, list[int]] = defaultdict(list)
    for pid, (parent, _name, _cpu) in procs.items():
        children[parent].append(pid)

    def tree(pid: int) -> float:
        return procs.get(pid, (0, "", 0.0))[2] + sum(tree(c) for c in children[pid])

    used = {role: sum(tree(pid) for pid in pids) for role, pids in roles.items()}
    used["postgres"] = sum(cpu for _p, name, cpu in procs.values() if name == "postgres")
    times = os.times()
    used["load generator"] = times.user + times.system
    return used


class Stack:
    """PostgreSQL database, private Redis, daphne servers and a Celery worker, torn down after."""

    def __init__(self, server: str, servers: int, players: int, keep_logs: bool) -> None:
        self.server, self.servers, self.players, self.keep_logs = (
            server,
            servers,
            players,
            keep_logs,
        )
        self.tmp = Path(tempfile.mkdtemp(prefix="cardtables-bench-"))
        self.db = f"bench_{secrets.token_hex(4)}"
        self.procs: list[subprocess.Popen] = []
        self.roles: dict[str, list[int]] = defaultdict(list)  # role -> pids (with children)
        self.urls: list[str] = []
        self.env: dict[str, str] = {}

    def _spawn(self, name: str, command: list[str], role: str = "") -> subprocess.Popen:
        log = (self.tmp / f"{name}.log").open("w")
        proc = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        self.procs.append(proc)
        self.roles[role or name].append(proc.pid)
        return proc

    def _manage(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def start(self) -> None:
        subprocess.run(["createdb", *PG_ARGS, self.db], check=True)
        redis_port = free_port()
        self.env = {
            k: v for k, v in os.environ.items() if k not in ("PYTEST_VERSION", "DJANGO_DEBUG")
        }
        self.env.update(
            DATABASE_URL=f"postgres://{PG_USER}@{PG_HOST}:{PG_PORT}/{self.db}",
            REDIS_URL=f"redis://127.0.0.1:{redis_port}/0",
            DJANGO_SETTINGS_MODULE="bench.settings",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            BENCH_STATIC_ROOT=str(self.tmp / "static"),
            TASKS_MODE="celery",
            LOG_LEVEL="WARNING",
        )
        self._spawn(
            "redis",
            [
                "redis-server",
                "--port",
                str(redis_port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
        )
        wait_for_port(redis_port)
        self._manage("migrate", "--noinput")
        self._manage("collectstatic", "--noinput")
        self._manage("bench_setup", "--players", str(self.players), "--password", PASSWORD)
        if self.server == "uvicorn":  # one port, ``servers`` worker processes behind it
            ports = [free_port()]
            self._spawn(
                "uvicorn",
                [
                    str(BIN / "uvicorn"),
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(ports[0]),
                    "--workers",
                    str(self.servers),
                    "--no-access-log",
                    "--timeout-keep-alive",
                    "75",
                    "--log-level",
                    "warning",
                    "config.asgi:application",
                ],
                role="web",
            )
        else:  # daphne has no workers: one process per port
            ports = [free_port() for _ in range(self.servers)]
            for port in ports:
                self._spawn(
                    f"daphne-{port}",
                    [
                        str(BIN / "daphne"),
                        "-b",
                        "127.0.0.1",
                        "-p",
                        str(port),
                        "config.asgi:application",
                    ],
                    role="web",
                )
        self._spawn(
            "celery",
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--concurrency",
                "1",
                "-l",
                "warning",
                "--without-gossip",
                "--without-mingle",
            ],
        )
        for port in ports:
            wait_for_port(port, 60)
        self.urls = [f"http://127.0.0.1:{port}" for port in ports]

    def psql(self, sql: str) -> None:
        subprocess.run(
            ["psql", *PG_ARGS, "-q", "-v", "ON_ERROR_STOP=1", "-d", self.db, "-c", sql],
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
        for proc in reversed(self.procs):
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        subprocess.run(["dropdb", *PG_ARGS, "--if-exists", "--force", self.db], check=False)
        if self.keep_logs:
            print(f"logs kept in {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


@dataclass
class Stats:
    latency: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter = field(default_factory=Counter)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    actions: int = 0
    refused: int = 0
    games_finished: int = 0
    fragment_bytes: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(what)


class FormParser(HTMLParser):
    """The fields a browser would submit for each form: hidden inputs, checked boxes, selects."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._select: str | None = None
        self._first_option: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append({"action": a.get("action", ""), "fields": {}})
        elif not self.forms:
            return
        fields = self.forms[-1]["fields"] if self.forms else {}
        if tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind == "checkbox":
                if "checked" in a:
                    fields[a["name"]] = a.get("value", "on")
            elif kind not in ("submit", "button"):
                fields[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select, self._first_option = a.get("name"), None
        elif tag == "option" and self._select:
            if self._first_option is None:
                self._first_option = a.get("value", "")
                fields.setdefault(self._select, self._first_option)
            if "selected" in a:
                fields[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None


ASSET = re.compile(r'<(?:link[^>]+rel="stylesheet"[^>]+href|script[^>]+src)="([^"]+)"')
CSS_URL = re.compile(r"url\(['\"]?([^'\")]+)['\"]?\)")


class Player:
    def __init__(self, name: str, base: str, rng: random.Random) -> None:
        self.name, self.base, self.rng = name, base, rng
        self.client = httpx.AsyncClient(
            base_url=base, timeout=60, headers={"User-Agent": "cardtables-bench/1"}
        )
        self.stats = Stats()
        self.sent_at: dict[
            tuple[int, int], float
        ] = {}  # (table, version) -> when a move was posted
        self.table_mates: list[Player] = []
        self.page_id = ""  # the open table page's id (live pages)

    async def close(self) -> None:
        await self.client.aclose()

    @property
    def token(self) -> str:
        return self.client.cookies.get("csrftoken", "")

    def _post_headers(self, path: str, htmx: bool) -> dict[str, str]:
        headers = {"X-CSRFToken": self.token, "Origin": self.base, "Referer": self.base + path}
        if htmx:
            headers["HX-Request"] = "true"
            if self.page_id:
                headers["X-Page"] = self.page_id
        return headers

    async def request(self, kind: str, method: str, url: str, **kwargs) -> httpx.Response | None:
        start = time.perf_counter()
        try:
            response = await self.client.request(method, url, **kwargs)
        except httpx.HTTPError as exc:
            self.stats.error(f"{method} {url}: {exc.__class__.__name__} {exc}")
            return None
        if response.status_code == 204:
            kind = "poll"
        self.stats.latency[kind].append((time.perf_counter() - start) * 1000)
        self.stats.statuses[response.status_code] += 1
        if response.status_code >= 500:
            self.stats.error(f"{method} {url}: {response.status_code}")
        return response

    async def login(self) -> None:
        path = "/accounts/login/"
        await self.client.get(path)
        response = await self.client.post(
            path,
            data={"login": self.name, "password": PASSWORD, "csrfmiddlewaretoken": self.token},
            headers=self._post_headers(path, htmx=False),
        )
        if response.status_code != 302:
            raise RuntimeError(f"{self.name} could not sign in: {response.status_code}")

    async def create_table(self, game: str, seats: int) -> int:
        lobby = await self.request("lobby", "GET", "/")
        fields = {"game": game}
        if lobby is not None and lobby.status_code == 200:
            parser = FormParser()
            parser.feed(lobby.text)
            for form in parser.forms:
                if form["action"].endswith("/tables/new/") and form["fields"].get("game") == game:
                    fields = dict(form["fields"])
        fields[f"{game}-num_seats"] = str(seats)
        fields["csrfmiddlewaretoken"] = self.token
        response = await self.request(
            "create",
            "POST",
            "/tables/new/",
            data=fields,
            headers=self._post_headers("/", htmx=False),
        )
        location = response.headers.get("location", "") if response is not None else ""
        match = re.search(r"/t/(\d+)/", location)
        if not match:
            status = response.status_code if response is not None else "no answer"
            raise RuntimeError(f"could not open a {game} table: {status}")
        return int(match.group(1))

    async def join(self, table_id: int) -> None:
        path = f"/t/{table_id}/join/"
        response = await self.request(
            "join",
            "POST",
            path,
            data={"csrfmiddlewaretoken": self.token},
            headers=self._post_headers(f"/t/{table_id}/", htmx=False),
        )
        if response is None or response.status_code != 302:
            raise RuntimeError(f"{self.name} could not join table {table_id}")

    async def view(self, table_id: int) -> dict | None:
        response = await self.request("json", "GET", f"/t/{table_id}/view.json")
        if response is None or response.status_code != 200:
            return None
        return response.json()

    async def play(
        self, table_id: int, game: str, stop_at: float, poll: float, think: float
    ) -> bool:
        """Plays at one table until it ends (True) or the time is up (False).

        Like the page: the board fragment (from the move's answer or a poll) says the
        version, whether it is this seat's turn and whether the game still runs; only
        when it is this seat's turn are the legal actions read from view.json.
        """
        page = await self.request("page", "GET", f"/t/{table_id}/")
        board = parse_board(page.text) if page is not None else None
        while time.monotonic() < stop_at:
            if board is None:  # no answer: ask again, as the page's next poll would
                await asyncio.sleep(poll)
                data = await self.view(table_id)
                board = (
                    None
                    if data is None
                    else Board(
                        data["version"],
                        data["seat"] in (data["view"] or {}).get("active_seats", []),
                        data["status"] not in DONE,
                    )
                )
                continue
            if not board.running:
                return True
            if board.my_turn:
                board = await self.move(table_id, game, think, board)
                continue
            await asyncio.sleep(self.rng.uniform(0.5 * poll, 1.5 * poll))
            response = await self.request(
                "board", "GET", f"/t/{table_id}/?v={board.version}", headers={"HX-Request": "true"}
            )
            if response is not None and response.status_code == 200:
                board = parse_board(response.text) or board
        return False

    async def move(
        self, table_id: int, game: str, think: float, board: Board | None = None
    ) -> Board | None:
        """Clicks one of the board's action buttons (read from ``view.json`` if the board
        shows none, as for a choice the page composes in script)."""
        legal = board.actions if board is not None else []
        version = board.version if board is not None else None
        if not legal:
            data = await self.view(table_id)
            if data is None:
                return None
            view, seat = data["view"] or {}, data["seat"]
            legal = view.get("legal_actions") or []
            version = data["version"]
            if data["status"] in DONE or seat not in view.get("active_seats", []) or not legal:
                return Board(data["version"], False, data["status"] not in DONE)
        if think:
            await asyncio.sleep(self.rng.uniform(0.5 * think, 1.5 * think))
        path = f"/t/{table_id}/act/"
        self.sent_at[(table_id, version)] = time.perf_counter()
        response = await self.request(
            "act",
            "POST",
            path,
            data={
                "action": self.rng.choice(legal),
                "version": str(version),
                "csrfmiddlewaretoken": self.token,
            },
            headers=self._post_headers(f"/t/{table_id}/", htmx=True),
        )
        if response is None:
            return None
        if response.status_code == 200:
            self.stats.actions += 1
            self.stats.fragment_bytes[game].append(len(response.content))
        elif response.status_code in (400, 409):
            self.stats.refused += 1  # e.g. a simultaneous phase moved on: a legitimate refusal
        elif response.status_code < 500:
            self.stats.error(f"POST {path}: {response.status_code}")
        return parse_board(response.text)

    async def play_live(self, table_id: int, game: str, stop_at: float, think: float) -> bool:
        """Plays at one table with the page's websocket open, as a live browser does: each
        change arrives as this seat's new board, pushed; the page polls only every 30 s."""
        # As the page: its socket and its posts carry the page's id (the server then spares
        # this socket the board the post's answer already brought).
        self.page_id = secrets.token_urlsafe(12)
        url = self.base.replace("http://", "ws://") + f"/ws/t/{table_id}/?page={self.page_id}"
        cookie = "; ".join(f"{k}={v}" for k, v in self.client.cookies.items())
        try:
            socket_ = await websockets.connect(
                url,
                additional_headers={"Cookie": cookie, "Origin": self.base},
                max_size=2**23,
                open_timeout=60,
            )
        except (TimeoutError, OSError, websockets.WebSocketException) as exc:
            self.stats.error(f"websocket {url}: {exc.__class__.__name__} {exc}")
            return await self.play(table_id, game, stop_at, LIVE_POLL, think)
        try:
            page = await self.request("page", "GET", f"/t/{table_id}/")
            board = parse_board(page.text) if page is not None else None
            while time.monotonic() < stop_at:
                if board is not None and not board.running:
                    return True
                if board is not None and board.my_turn:
                    board = await self.move(table_id, game, think, board) or board
                    continue
                try:
                    wait = max(0.1, min(LIVE_POLL, stop_at - time.monotonic()))
                    message = await asyncio.wait_for(socket_.recv(), wait)
                except TimeoutError:
                    version = board.version if board is not None else 0
                    response = await self.request(
                        "board",
                        "GET",
                        f"/t/{table_id}/?v={version}",
                        headers={"HX-Request": "true"},
                    )
                    if response is not None and response.status_code == 200:
                        board = parse_board(response.text) or board
                    continue
                except websockets.WebSocketException as exc:
                    self.stats.error(f"websocket {url}: {exc.__class__.__name__}")
                    return await self.play(table_id, game, stop_at, LIVE_POLL, think)
                pushed = parse_board(message)
                if pushed is None:
                    continue
                moved_at = self.group_sent_at(table_id, pushed.version - 1)
                if moved_at is not None:
                    self.stats.latency["push"].append((time.perf_counter() - moved_at) * 1000)
                self.stats.fragment_bytes["push " + game].append(len(message))
                if board is None or pushed.version >= board.version:
                    board = pushed
            return False
        finally:
            await socket_.close()

    def group_sent_at(self, table_id: int, version: int) -> float | None:
        """When someone at this table posted the move that made ``version + 1``."""
        for other in self.table_mates:
            if (table_id, version) in other.sent_at:
                return other.sent_at[(table_id, version)]
        return None


@dataclass
class Board:
    version: int
    my_turn: bool
    running: bool
    actions: list[str] = field(default_factory=list)
    """The action buttons' values (JSON), as the page offers them."""


BOARD_TAG = re.compile(r'<div id="board"[^>]*>', re.S)
ACTION_BUTTON = re.compile(r'<button type="submit" name="action" value="([^"]*)"')
LIVE_POLL = 30.0  # seconds between a live page's safety polls (table.html: every 30s)


def parse_board(html: str) -> Board | None:
    """What the page's board element says: its version, this seat's turn, still polling."""
    tag = BOARD_TAG.search(html)
    version = re.search(r'data-version="(\d+)"', tag.group(0)) if tag else None
    if version is None:
        return None
    my_turn = 'data-my-turn="1"' in tag.group(0)
    actions = [unescape(v) for v in ACTION_BUTTON.findall(html)] if my_turn else []
    return Board(int(version.group(1)), my_turn, "hx-get=" in tag.group(0), actions)


def seat_groups(players: int) -> list[tuple[str, int, int]]:
    """Splits ``players`` into tables of every game in turn: (game, seats, first player)."""
    groups, left, i = [], players, 0
    while left:
        game, seats = GAMES[i % len(GAMES)]
        i += 1
        if seats <= left and left - seats != 1:
            groups.append((game, seats, players - left))
            left -= seats
    return groups


async def run_group(
    players: list[Player],
    game: str,
    stop_at: float,
    poll: float | None,
    think: float,
    tables: list[tuple[str, int]],
) -> None:
    """One table after another for these players; ``poll`` None: live pages (websockets)."""
    host = players[0]
    for player in players:
        player.table_mates = players
    while time.monotonic() < stop_at:
        try:
            table_id = await host.create_table(game, len(players))
            for player in players[1:]:
                await player.join(table_id)
        except RuntimeError as exc:
            host.stats.error(str(exc))
            await asyncio.sleep(1)
            continue
        tables.append((game, table_id))
        if poll is None:
            plays = (p.play_live(table_id, game, stop_at, think) for p in players)
        else:
            plays = (p.play(table_id, game, stop_at, poll, think) for p in players)
        ended = await asyncio.gather(*plays)
        if all(ended):
            host.stats.games_finished += 1


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


def merge(stats: list[Stats]) -> Stats:
    total = Stats()
    for s in stats:
        for kind, values in s.latency.items():
            total.latency[kind] += values
        total.statuses.update(s.statuses)
        total.errors += s.errors
        total.error_samples += s.error_samples[: max(0, 10 - len(total.error_samples))]
        total.actions += s.actions
        total.refused += s.refused
        total.games_finished += s.games_finished
        for game, sizes in s.fragment_bytes.items():
            total.fragment_bytes[game] += sizes
    return total


async def run_phase(
    players: list[Player], seconds: float, poll: float | None, think: float
) -> tuple[Stats, float, list[tuple[str, int]]]:
    for p in players:
        p.stats = Stats()
    tables: list[tuple[str, int]] = []
    start = time.monotonic()
    stop_at = start + seconds
    await asyncio.gather(
        *(
            run_group(players[first : first + seats], game, stop_at, poll, think, tables)
            for game, seats, first in seat_groups(len(players))
        )
    )
    return merge([p.stats for p in players]), time.monotonic() - start, tables


async def first_load(player: Player, table_id: int) -> dict[str, int]:
    """Bytes of a table page's first load: the HTML and every stylesheet, script and image."""
    client = httpx.AsyncClient(
        base_url=player.base,
        cookies=player.client.cookies,
        timeout=60,
        headers={"Accept-Encoding": "gzip"},
    )
    try:
        page = await client.get(f"/t/{table_id}/")
        if page.status_code != 200:
            return {"files": 0, "wire_bytes": 0, "raw_bytes": 0, "html_bytes": 0}
        wire, raw, count = page.num_bytes_downloaded, len(page.content), 1
        urls = list(dict.fromkeys(ASSET.findall(page.text)))
        seen: set[str] = set()
        while urls:
            url = urls.pop(0)
            if url in seen or url.startswith(("http:", "https:", "data:")):
                continue
            seen.add(url)
            response = await client.get(url)
            wire += response.num_bytes_downloaded
            raw += len(response.content)
            count += 1
            if url.endswith(".css"):
                base = url.rsplit("/", 1)[0]
                for ref in CSS_URL.findall(response.text):
                    ref = ref.strip()
                    if not ref.startswith(("data:", "#", "%23")):
                        urls.append(ref if ref.startswith("/") else f"{base}/{ref}")
        return {
            "files": count,
            "wire_bytes": wire,
            "raw_bytes": raw,
            "html_bytes": len(page.content),
        }
    finally:
        await client.aclose()


def pgbench(stack: Stack, clients: int, seconds: int) -> float:
    stack.psql(PGBENCH_SETUP)
    script = stack.tmp / "move.sql"
    script.write_text(PGBENCH_SCRIPT)
    out = subprocess.run(
        [
            "pgbench",
            *PG_ARGS,
            "-n",
            "-c",
            str(clients),
            "-j",
            "2",
            "-T",
            str(seconds),
            "-f",
            str(script),
            stack.db,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    match = re.search(r"tps = ([\d.]+)", out)
    return float(match.group(1)) if match else float("nan")


def row(kind: str, values: list[float]) -> str:
    return (
        f"| {kind} | {len(values)} | {percentile(values, 50):.1f} | "
        f"{percentile(values, 95):.1f} | {percentile(values, 99):.1f} |"
    )


async def main(args: argparse.Namespace) -> dict:
    sizes = [int(n) for n in args.players.split(",")]
    stack = Stack(args.server, args.servers, max(sizes), args.keep_logs)
    result: dict = {
        "phases": [],
        "load_before": os.getloadavg(),
        "setup": {
            "server": f"{args.server} x{args.servers}",
            "pages": "live (websocket)" if args.live else f"polling every {args.poll} s",
            "think_s": args.think,
        },
    }
    try:
        stack.start()
        pids = " ".join(str(proc.pid) for proc in stack.procs)
        print(f"stack up: {', '.join(stack.urls)}, database {stack.db}, pids {pids}", flush=True)
        rng = random.Random(args.seed)
        players = [
            Player(f"bench{i:03d}", stack.urls[i % len(stack.urls)], random.Random(rng.random()))
            for i in range(max(sizes))
        ]
        gate = asyncio.Semaphore(4)

        async def login(p: Player) -> None:
            async with gate:
                await p.login()

        started = time.monotonic()
        await asyncio.gather(*(login(p) for p in players))
        print(f"{len(players)} players signed in in {time.monotonic() - started:.0f} s", flush=True)

        last_tables: list[tuple[str, int]] = []
        for n in sizes:
            cpu_before = cpu_by_role(stack.roles)
            stats, elapsed, tables = await run_phase(
                players[:n], args.seconds, None if args.live else args.poll, args.think
            )
            cpu_after = cpu_by_role(stack.roles)
            cpu_ms_per_action = {
                role: round(1000 * (cpu_after[role] - cpu_before[role]) / max(stats.actions, 1), 1)
                for role in cpu_after
            }
            last_tables = tables or last_tables
            phase = {
                "players": n,
                "seconds": round(elapsed, 1),
                "actions": stats.actions,
                "actions_per_s": round(stats.actions / elapsed, 1),
                "requests_per_s": round(sum(map(len, stats.latency.values())) / elapsed, 1),
                "games_finished": stats.games_finished,
                "refused": stats.refused,
                "errors": stats.errors,
                "error_samples": stats.error_samples,
                "statuses": dict(stats.statuses),
                "latency_ms": {
                    kind: {
                        "count": len(v),
                        "p50": round(percentile(v, 50), 1),
                        "p95": round(percentile(v, 95), 1),
                        "p99": round(percentile(v, 99), 1),
                    }
                    for kind, v in sorted(stats.latency.items())
                },
                "fragment_bytes": {
                    game: round(sum(v) / len(v)) for game, v in sorted(stats.fragment_bytes.items())
                },
                "cpu_ms_per_action": cpu_ms_per_action,
            }
            result["phases"].append(phase)
            print(
                f"\n## {n} players, {elapsed:.0f} s: {phase['actions_per_s']} actions/s, "
                f"{stats.games_finished} games finished, {stats.errors} errors, "
                f"{stats.refused} refused",
                flush=True,
            )
            print("| request | count | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|---|")
            for kind, values in sorted(stats.latency.items()):
                print(row(kind, values))
            for sample in stats.error_samples:
                print("  error:", sample)
            print(
                "CPU ms per action: "
                + ", ".join(f"{role} {ms}" for role, ms in cpu_ms_per_action.items())
            )

        loads = {}
        for game, _seats in GAMES:
            table_id = next((t for g, t in reversed(last_tables) if g == game), None)
            if table_id is not None:
                loads[game] = await first_load(players[0], table_id)
        fragments = result["phases"][-1]["fragment_bytes"] if result["phases"] else {}
        result["bytes"] = {"first_load": loads, "fragment_per_move": fragments}
        print(
            "\n| game | first load: files | bytes on the wire | bytes unpacked | HTML | "
            "fragment per move |\n|---|---|---|---|---|---|"
        )
        for game, load in loads.items():
            print(
                f"| {game} | {load['files']} | {load['wire_bytes']} | {load['raw_bytes']} | "
                f"{load['html_bytes']} | {fragments.get(game, '')} |"
            )
        for p in players:
            await p.close()

        tps = pgbench(stack, args.pg_clients, args.pg_seconds)
        result["pgbench_tps"] = tps
        print(f"\npgbench, move-shaped transaction, {args.pg_clients} clients: {tps:.0f} tps")
        for phase in result["phases"]:
            phase["ratio_to_pgbench"] = round(phase["actions_per_s"] / tps, 3) if tps else None
            print(
                f"  {phase['players']} players: {phase['actions_per_s']} actions/s = "
                f"{100 * phase['ratio_to_pgbench']:.1f}% of pgbench"
            )
    finally:
        stack.stop()
    result["load_after"] = os.getloadavg()
    print(f"load average before {result['load_before']}, after {result['load_after']}")
    return result


def markdown(result: dict, command: str) -> str:
    """The run's figures, as the section this bench writes into docs/benchmarks.md."""
    setup, phases = result["setup"], result["phases"]
    before, after = result["load_before"][0], result.get("load_after", (0.0,))[0]

    def lat(phase: dict, kind: str) -> str:
        figures = phase["latency_ms"].get(kind)
        if not figures:
            return "-"
        return f"{figures['p50']:.0f} / {figures['p95']:.0f} / {figures['p99']:.0f}"

    lines = [
        "### Latest run (written by `bench/load.py`)",
        "",
        f"`{command}` on {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC:"
        f" {setup['server']}, pages {setup['pages']}, thinking time {setup['think_s']} s;"
        f" {os.cpu_count()} CPUs, load average {before:.1f} before and {after:.1f} after.",
        "",
        "| N players | actions/s | action post p50 / p95 / p99 ms | push p50 / p95 / p99 ms"
        " | page p50 / p95 / p99 ms | web CPU ms per action | PostgreSQL CPU ms per action"
        " | share of pgbench | errors | refused |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for phase in phases:
        cpu = phase["cpu_ms_per_action"]
        share = phase.get("ratio_to_pgbench")
        lines.append(
            f"| {phase['players']} | {phase['actions_per_s']} | {lat(phase, 'act')}"
            f" | {lat(phase, 'push')} | {lat(phase, 'page')} | {cpu.get('web', 0)}"
            f" | {cpu.get('postgres', 0)} | {'-' if share is None else f'{100 * share:.1f}%'}"
            f" | {phase['errors']} | {phase['refused']} |"
        )
    lines += [
        "",
        f"pgbench, the move-shaped transaction: {result.get('pgbench_tps', 0):.0f} tps.",
        "",
        "| game | first load: files | bytes on the wire | bytes unpacked | HTML"
        " | POST answer per move | push per move |",
        "|---|---|---|---|---|---|---|",
    ]
    fragments = result.get("bytes", {}).get("fragment_per_move", {})
    for game, load in result.get("bytes", {}).get("first_load", {}).items():
        lines.append(
            f"| {game} | {load['files']} | {load['wire_bytes']:,} | {load['raw_bytes']:,}"
            f" | {load['html_bytes']:,} | {fragments.get(game, 0):,}"
            f" | {fragments.get('push ' + game, 0):,} |"
        )
    return "\n".join(lines) + "\n"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="8,32,128", help="comma-separated N")
    parser.add_argument("--seconds", type=float, default=40, help="play time per N")
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        help="seconds between a waiting page's polls (on average)",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds a player thinks before a move (on average)",
    )
    parser.add_argument("--server", choices=("uvicorn", "daphne"), default="uvicorn")
    parser.add_argument("--servers", type=int, default=2, help="server processes")
    parser.add_argument(
        "--live",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="pages with their websocket open (else they poll every --poll seconds)",
    )
    parser.add_argument("--pg-clients", type=int, default=8)
    parser.add_argument("--pg-seconds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--out",
        default=str(DOCS),
        help="the file whose 'bench/load.py' section gets the figures ('' for none)",
    )
    parser.add_argument("--keep-logs", action="store_true")
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse_args()
    figures = asyncio.run(main(arguments))
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(figures, indent=2))
    if arguments.out:
        command = " ".join([".venv/bin/python bench/load.py", *sys.argv[1:]])
        write_section(Path(arguments.out), markdown(figures, command), source="bench/load.py")
        print(f"wrote {arguments.out}")
