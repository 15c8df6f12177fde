"""Load bench: N signed-in players play whole games as their browsers would.

It starts a production-style stack of its own (a fresh PostgreSQL database, a
private Redis, uvicorn with two worker processes (or daphne, ``--server``), a
Celery worker; DEBUG off, the manifest static files that whitenoise serves),
signs every player in through the sign-in form, and then, for each N, seats N
players at tables of every game (or of ``--games`` only) and lets them play random
legal moves for a bounded time, as a live page does (``--live``, the default):

- each player's page loads the table, opens the table's websocket (``?page=``) and says
  which board it shows (``{"hello": version, "digest": private digest}``); every change
  arrives pushed, as the parts of the board that changed for this page (``#board-public``,
  and ``#board-private`` only when this seat's own part changed); a safety poll and a
  ``ping`` every 30 s;
- a player whose turn it is clicks one of the private part's action buttons: the move goes
  over the open socket (``{"action": <the button's value>, "version": <the version>}``), and
  its answer comes back on that socket only (``#board-message``, empty or a refusal's
  reason, then the changed parts).

With ``--no-live`` the pages poll ``/t/<id>/?v=<version>`` every ``--poll`` seconds
instead and post their moves over HTTP (the fallback when the websocket is down: the
answer is the refusal's reason, or nothing, and the whole board). ``--think`` adds a
player's thinking time before each move.

It prints actions per second, latency percentiles per kind of request ("act": from a
move's sending to its answer, over the socket or the POST; "push": from a move's sending
to another seat's socket receiving the new version), the errors (5xx and failed
connections), the CPU milliseconds per action of each part of the stack, whether the
websocket negotiated permessage-deflate, the bytes of a table page's first load and of a
push and a move's answer (raw, and on the wire: gzip for HTTP answers; for socket
messages each one deflated on its own, an upper bound of what permessage-deflate sends),
against the 5 KB limit of issue 17, and pgbench's rate for a move-shaped transaction on
the same PostgreSQL (the machine's ceiling for moves). ``--peer`` also runs the
boardgame.io peer (``../shared/bench/peer-bgio/``, District Noir, in FlatFile storage and
in memory) right after the phase nearest its client count, and prints our District Noir
rate as a share of its.

    .venv/bin/python bench/load.py --players 8,32,128 --seconds 40
    .venv/bin/python bench/load.py --games district-noir --players 32 --seconds 20 --peer
    .venv/bin/python bench/load.py --players 8 --seconds 10 --no-write   # a quick check

``--fault redis-pause`` (or ``redis-restart``) pauses the private Redis (or kills it and starts
it again empty) for ``--fault-seconds`` in the middle of each phase, and reports the moves
accepted against the moves stored, the longest action, the sockets closed and how, and how
long pages took to get pushes again (issue 20).
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
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zlib
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import CTRL_OPCODES, Frame

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
# Issue 17: a push, and a move's answer, stay within 5 KB on the wire.
WIRE_LIMIT = 5 * 1024
ANSWER_TIMEOUT = 60.0  # seconds a page waits for its move's answer on the socket
# The boardgame.io peer (its README says how to set it up and run it).
PEER_SOURCE = ROOT.parent / "shared" / "bench" / "peer-bgio"
PEER_DIR = ROOT / "bench" / ".peer" / "peer-bgio"  # git-ignored; installed once, reused
PEER_PACKAGES = {"boardgame.io": "0.50.2", "koa-compose": "4.1.0", "node-persist": "3"}
PEER_FILES = ("game.js", "server.js", "load.js")
PEER_LINE = re.compile(
    r"boardgame\.io (?P<release>[\d.]+): (?P<matches>\d+) matches, (?P<seconds>[\d.]+) s: "
    r"(?P<moves_per_s>[\d.]+) moves/s, p50 (?P<p50>\S+) ms, p95 (?P<p95>\S+) ms, "
    r"p99 (?P<p99>\S+) ms, games finished (?P<games_finished>\d+), errors (?P<errors>\d+)"
)
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

    def __init__(
        self, server: str, servers: int, players: int, keep_logs: bool, ws: str = "auto"
    ) -> None:
        self.ws = ws  # uvicorn's websocket implementation (--ws)
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
        self.redis_port = redis_port
        self.start_redis()
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
                    "--ws",
                    self.ws,
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

    def start_redis(self) -> None:
        """The stack's private redis-server (empty: no snapshot, no append-only file)."""
        port = str(self.redis_port)
        command = ["redis-server", "--port", port, "--bind", "127.0.0.1", "--save", ""]
        self.redis = self._spawn("redis", [*command, "--appendonly", "no"])
        wait_for_port(self.redis_port)

    def redis_signal(self, sig: int) -> None:
        """SIGSTOP pauses the private Redis (it hangs: connections open, no answers),
        SIGCONT resumes it."""
        os.kill(self.redis.pid, sig)

    def redis_kill(self) -> None:
        """Kills the private Redis: everything it held (groups, queued tasks, cache) is lost."""
        self.redis.kill()
        self.redis.wait()

    def psql(self, sql: str) -> None:
        subprocess.run(
            ["psql", *PG_ARGS, "-q", "-v", "ON_ERROR_STOP=1", "-d", self.db, "-c", sql],
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def query(self, sql: str) -> str:
        out = subprocess.run(
            ["psql", *PG_ARGS, "-q", "-t", "-A", "-d", self.db, "-c", sql],
            check=True,
            capture_output=True,
            text=True,
        )
        return out.stdout.strip()

    def stop(self) -> None:
        if getattr(self, "redis", None) is not None and self.redis.poll() is None:
            self.redis_signal(signal.SIGCONT)  # a paused Redis would not hear SIGTERM
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
    actions_by_game: Counter = field(default_factory=Counter)
    refused: int = 0
    games_finished: int = 0
    # (game, "answer" | "push" | "poll") -> (raw bytes, bytes on the wire, bytes compressed
    # alone) of each message; for HTTP answers the last two are the same (gzip)
    sizes: dict[tuple[str, str], list[tuple[int, int, int]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    # the server's Sec-WebSocket-Extensions answer ("" for none) -> sockets
    extensions: Counter = field(default_factory=Counter)
    # moves sent over a socket that closed before their answer came (their fate unknown here:
    # the moves stored tell)
    unanswered: int = 0
    # how the server closed a live page's socket (its close code, or "dropped") -> sockets;
    # and the HTTP status of a refused websocket handshake -> handshakes
    closes: Counter = field(default_factory=Counter)
    refused_handshakes: Counter = field(default_factory=Counter)
    # per page: the moments (time.monotonic) it received a push over its socket
    pushes_at: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(what)

    def socket_message(
        self, game: str, kind: str, text: str, wire: int | None, window_bits: int | None
    ) -> None:
        """A message received on the socket: its raw size, its bytes on the wire (frames
        counted as they came, ``None`` if not counted) and deflated on its own (``window_bits``:
        the server's window if permessage-deflate was negotiated, else None: not compressed)."""
        raw = text.encode()
        alone = len(raw) if window_bits is None else deflated_size(raw, window_bits)
        alone += frame_header(alone)
        self.sizes[(game, kind)].append((len(raw), alone if wire is None else wire, alone))

    def http_answer(self, game: str, kind: str, response: httpx.Response) -> None:
        """An HTTP answer: its unpacked size, and what came over the wire (gzip, if any)."""
        wire = response.num_bytes_downloaded
        self.sizes[(game, kind)].append((len(response.content), wire, wire))


def deflated_size(data: bytes, window_bits: int = 15) -> int:
    """The payload permessage-deflate sends for ``data`` without context takeover (RFC 7692:
    raw deflate, flushed, its ``00 00 ff ff`` tail left off), with the server's window: an
    upper bound of the payload of one message (context takeover only makes it smaller)."""
    # memLevel 5: what uvicorn's websockets server compresses with
    packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -window_bits, 5)
    packed = packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH)
    return len(packed) - 4 if packed.endswith(b"\x00\x00\xff\xff") else len(packed)


def frame_header(payload: int) -> int:
    """Bytes of the header of a frame the server sends (unmasked) with ``payload`` bytes."""
    return 2 + (2 if payload > 125 else 0) + (6 if payload > 65535 else 0)


class WireCount:
    """The bytes of each message a socket received, as they came over the wire: the frames'
    payloads before permessage-deflate undoes them, and their headers."""

    def __init__(self) -> None:
        self.window_bits: int | None = None  # the server's window, once deflate is agreed
        self.partial = 0
        self.messages: deque[int] = deque()

    def frame(self, frame: Frame) -> None:
        if frame.opcode in CTRL_OPCODES:
            return
        self.partial += len(frame.data) + frame_header(len(frame.data))
        if frame.fin:
            self.messages.append(self.partial)
            self.partial = 0

    def next(self) -> int | None:
        """The wire bytes of the next message ``recv`` returns (they come in order)."""
        return self.messages.popleft() if self.messages else None


class CountedDeflate(Extension):
    """permessage-deflate as agreed, counting each received frame before it is inflated."""

    def __init__(self, inner: Extension, count: WireCount) -> None:
        self.inner, self.count, self.name = inner, count, inner.name

    def decode(self, frame: Frame, *, max_size: int | None = None) -> Frame:
        self.count.frame(frame)
        return self.inner.decode(frame, max_size=max_size)

    def encode(self, frame: Frame) -> Frame:
        return self.inner.encode(frame)


class CountingDeflateFactory(ClientPerMessageDeflateFactory):
    """The offer websockets makes by default (as browsers do: permessage-deflate), its
    agreed extension wrapped to count the wire's bytes."""

    def __init__(self, count: WireCount) -> None:
        super().__init__(compress_settings={"memLevel": 5})  # websockets' default offer
        self.count = count

    def process_response_params(self, params: Any, accepted_extensions: Any) -> Extension:
        inner = super().process_response_params(params, accepted_extensions)
        self.count.window_bits = getattr(inner, "remote_max_window_bits", None) or 15
        return CountedDeflate(inner, self.count)


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
        """Plays at one table until it ends (True) or the time is up (False), over HTTP.

        Like the page without a socket: the board (from the move's answer or a poll) says
        the version, whether the game still runs (its public part still polls), whether it
        is this seat's turn and its moves (its private part); only when it is this seat's
        turn and the board offers no button are the legal actions read from view.json.
        """
        page = await self.request("page", "GET", f"/t/{table_id}/")
        board = parse_board(page.text) if page is not None else None
        ended, _board = await self.play_http(table_id, game, stop_at, poll, think, board)
        return ended

    async def play_http(
        self,
        table_id: int,
        game: str,
        stop_at: float,
        poll: float,
        think: float,
        board: Board | None,
        poll_first: bool = False,
    ) -> tuple[bool, Board | None]:
        """``play`` from a page that shows ``board`` (``poll_first``: it polls at once, as a
        page whose socket just closed does); (whether the game ended, the board shown)."""
        if poll_first and board is not None:
            board = await self.poll(table_id, game, board)
        while time.monotonic() < stop_at:
            if board is None:  # no answer: ask again, as the page's next poll would
                await asyncio.sleep(poll)
                board = await self.board_from_view(table_id)
                continue
            if not board.running:
                return True, board
            if board.my_turn:
                board = await self.move(table_id, game, think, board)
                continue
            await asyncio.sleep(min(self.rng.uniform(0.5 * poll, 1.5 * poll), poll_left(stop_at)))
            board = await self.poll(table_id, game, board)
        return False, board

    async def poll(self, table_id: int, game: str, board: Board) -> Board:
        """The board's poll (``?v=<version>``): 204 if unchanged, else the whole board."""
        response = await self.request(
            "board", "GET", f"/t/{table_id}/?v={board.version}", headers={"HX-Request": "true"}
        )
        if response is None or response.status_code != 200:
            return board
        self.stats.http_answer(game, "poll", response)
        return parse_board(response.text, board) or board

    async def board_from_view(self, table_id: int, board: Board | None = None) -> Board | None:
        """What view.json says of the board (no action buttons: the caller reads its legal
        actions), keeping ``board``'s private digest."""
        data = await self.view(table_id)
        if data is None:
            return None
        return Board(
            data["version"],
            data["seat"] in (data["view"] or {}).get("active_seats", []),
            data["status"] not in DONE,
            digest=board.digest if board is not None else "",
        )

    async def choose(
        self, table_id: int, board: Board | None
    ) -> tuple[str | None, int | None, Board | None]:
        """One of the board's action buttons (its value) and the version it is chosen on; read
        from ``view.json`` if the board shows none, as for a choice the page composes in
        script. (None, None, the board as view.json says) when there is nothing to play."""
        legal: list = board.actions if board is not None else []
        version = board.version if board is not None else None
        if not legal:
            data = await self.view(table_id)
            if data is None:
                return None, None, None
            view, seat = data["view"] or {}, data["seat"]
            legal = view.get("legal_actions") or []
            version = data["version"]
            if data["status"] in DONE or seat not in view.get("active_seats", []) or not legal:
                running = data["status"] not in DONE
                digest = board.digest if board is not None else ""
                return None, None, Board(data["version"], False, running, digest=digest)
        action = self.rng.choice(legal)
        return (action if isinstance(action, str) else json.dumps(action)), version, board

    async def move(
        self, table_id: int, game: str, think: float, board: Board | None = None
    ) -> Board | None:
        """Clicks one of the board's action buttons and posts it, as a page without a socket
        does; the answer is the refusal's reason (or nothing) and the whole board."""
        action, version, known = await self.choose(table_id, board)
        if action is None:
            return known
        if think:
            await asyncio.sleep(self.rng.uniform(0.5 * think, 1.5 * think))
        path = f"/t/{table_id}/act/"
        self.sent_at[(table_id, version)] = time.perf_counter()
        response = await self.request(
            "act",
            "POST",
            path,
            data={"action": action, "version": str(version), "csrfmiddlewaretoken": self.token},
            headers=self._post_headers(f"/t/{table_id}/", htmx=True),
        )
        if response is None:
            return None
        if response.status_code < 500:
            self.stats.http_answer(game, "answer", response)
        if response.status_code == 200:
            self.stats.actions += 1
            self.stats.actions_by_game[game] += 1
        elif response.status_code in (400, 409):
            self.stats.refused += 1  # e.g. a simultaneous phase moved on: a legitimate refusal
            self.sent_at.pop((table_id, version), None)
        elif response.status_code < 500:
            self.stats.error(f"POST {path}: {response.status_code}")
        return parse_board(response.text, board)

    async def play_live(self, table_id: int, game: str, stop_at: float, think: float) -> bool:
        """Plays at one table with the page's websocket open, as a live browser does: the page
        loads, opens its socket and says which board it shows; each change arrives pushed, as
        the parts that changed for this page; moves go over the socket and are answered on it.

        When the socket closes (the server's 1013 when it has no channel layer, or a drop), the
        page does what static/js/table.js does: it polls at once and then every
        ``FALLBACK_POLL`` seconds, moving over HTTP, and opens its socket again after a pause
        that doubles up to 10 s (from 1 s; afresh once a socket stayed open 5 s)."""
        page = await self.request("page", "GET", f"/t/{table_id}/")
        board = parse_board(page.text) if page is not None and page.status_code == 200 else None
        # As the page: its socket carries the page's id (the server then spares this socket
        # the push of its own moves: their answer already brought the new board).
        self.page_id = secrets.token_urlsafe(12)
        failures = 0
        while time.monotonic() < stop_at:
            if board is not None and not board.running:
                return True
            opened = time.monotonic()
            ended, board = await self.live_session(table_id, game, stop_at, think, board)
            if ended is not None:
                return ended
            failures = 1 if time.monotonic() - opened > 5 else failures + 1
            most = min(10.0, 2.0**failures)
            again = time.monotonic() + most / 2 + self.rng.random() * most / 2
            ended, board = await self.play_http(
                table_id, game, min(stop_at, again), FALLBACK_POLL, think, board, poll_first=True
            )
            if ended:
                return True
        return False

    async def live_session(
        self, table_id: int, game: str, stop_at: float, think: float, board: Board | None
    ) -> tuple[bool | None, Board | None]:
        """One socket of the page, from its opening to the game's end or the time's (True,
        False), or to its closing (None); and the board the page shows then."""
        url = self.base.replace("http://", "ws://") + f"/ws/t/{table_id}/?page={self.page_id}"
        cookie = "; ".join(f"{k}={v}" for k, v in self.client.cookies.items())
        count = WireCount()
        try:
            socket_ = await websockets.connect(  # offers permessage-deflate, as browsers do
                url,
                additional_headers={"Cookie": cookie, "Origin": self.base},
                max_size=2**23,
                open_timeout=60,
                extensions=[CountingDeflateFactory(count)],
            )
        except websockets.InvalidStatus as exc:
            status = exc.response.status_code
            self.stats.refused_handshakes[status] += 1
            if status >= 500:
                self.stats.error(f"websocket {url}: refused with {status}")
            return None, board
        except (TimeoutError, OSError, websockets.WebSocketException) as exc:
            self.stats.error(f"websocket {url}: {exc.__class__.__name__} {exc}")
            return None, board
        response = socket_.response
        extensions = response.headers.get("Sec-WebSocket-Extensions", "") if response else ""
        self.stats.extensions[extensions] += 1
        live = LivePage(self, socket_, count, table_id, game, board)
        try:
            await socket_.send(
                json.dumps(
                    {
                        "hello": board.version if board is not None else -1,
                        "digest": board.digest if board is not None else "",
                    }
                )
            )
            while time.monotonic() < stop_at:
                if live.board is not None and not live.board.running:
                    return True, live.board
                if live.board is not None and live.board.my_turn:
                    await live.move(think)
                    continue
                await live.wait(stop_at, for_turn=True)
            return False, live.board
        except (OSError, websockets.WebSocketException) as exc:
            received = getattr(exc, "rcvd", None)
            code = received.code if received is not None else "dropped"
            self.stats.closes[code] += 1
            if code != LIVE_UNAVAILABLE:
                self.stats.error(f"websocket {url}: {exc.__class__.__name__} {exc}")
            if live.pending:
                self.stats.unanswered += 1
            return None, live.board
        finally:
            await socket_.close()

    def group_sent_at(self, table_id: int, version: int) -> float | None:
        """When someone at this table sent the move that made ``version + 1``."""
        for other in self.table_mates:
            if (table_id, version) in other.sent_at:
                return other.sent_at[(table_id, version)]
        return None


class LivePage:
    """A table page with its websocket open: the board it shows, and what it does on it."""

    def __init__(
        self,
        player: Player,
        socket_: websockets.ClientConnection,
        count: WireCount,
        table_id: int,
        game: str,
        board: Board | None,
    ) -> None:
        self.player, self.socket, self.table_id, self.game = player, socket_, table_id, game
        self.count = count
        self.wire: int | None = None  # the wire bytes of the message ``receive`` returned
        self.board = board
        self.next_tick = time.monotonic() + LIVE_POLL  # the page's ping and safety poll
        self.pending = False  # a move sent, its answer not come yet

    @property
    def stats(self) -> Stats:
        return self.player.stats

    async def receive(self, until: float) -> str | None:
        """The socket's next message, or None at ``until``; meanwhile, every 30 s, the page's
        ping (presence) and its safety poll."""
        while True:
            now = time.monotonic()
            if now >= until:
                return None
            if now >= self.next_tick:
                self.next_tick = now + LIVE_POLL
                await self.socket.send("ping")
                if self.board is not None:
                    self.board = await self.player.poll(self.table_id, self.game, self.board)
                continue
            try:
                message = await asyncio.wait_for(
                    self.socket.recv(), min(until, self.next_tick) - now
                )
            except TimeoutError:
                continue
            self.wire = self.count.next()
            return message if isinstance(message, str) else message.decode()

    def record(self, kind: str, message: str) -> None:
        self.stats.socket_message(self.game, kind, message, self.wire, self.count.window_bits)

    def pushed(self, message: str) -> None:
        """A push: the parts of the board that changed for this page."""
        board = parse_board(message, self.board)
        if board is None:
            return
        self.record("push", message)
        self.stats.pushes_at[self.player.name].append(time.monotonic())
        if PUBLIC_TAG.search(message):
            moved_at = self.player.group_sent_at(self.table_id, board.version - 1)
            if moved_at is not None:
                self.stats.latency["push"].append((time.perf_counter() - moved_at) * 1000)
        if self.board is None or board.version >= self.board.version:
            self.board = board

    async def wait(self, until: float, *, for_turn: bool) -> None:
        """Takes the pushes until ``until``, or until the game ends or (``for_turn``) it is
        this seat's turn."""
        while True:
            board = self.board
            if board is not None and (not board.running or (for_turn and board.my_turn)):
                return
            message = await self.receive(until)
            if message is None:
                return
            self.pushed(message)

    async def move(self, think: float) -> None:
        """Clicks one of the board's action buttons: the move goes over the socket, and its
        answer (``#board-message`` and the changed parts) comes back on it."""
        player = self.player
        if think:  # the page keeps taking pushes while its player thinks
            await self.wait(
                time.monotonic() + player.rng.uniform(0.5 * think, 1.5 * think), for_turn=False
            )
            if self.board is None or not self.board.running or not self.board.my_turn:
                return
        action, version, known = await player.choose(self.table_id, self.board)
        if action is None:
            if known is not None:
                self.board = known
            if known is None or known.my_turn:
                await asyncio.sleep(0.5)  # view.json had no answer, or no move to make yet
            return
        key = (self.table_id, version)
        player.sent_at[key] = sent = time.perf_counter()
        self.pending = True
        await self.socket.send(json.dumps({"action": action, "version": str(version)}))
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while True:
            message = await self.receive(deadline)
            if message is None:
                raise websockets.WebSocketException(f"no answer to a move in {ANSWER_TIMEOUT} s")
            if MESSAGE_TAG.search(message):
                break
            self.pushed(message)  # another seat's move, sent before this one's answer
        self.pending = False
        self.stats.latency["act"].append((time.perf_counter() - sent) * 1000)
        self.record("answer", message)
        reason = REFUSAL.search(message)
        if reason is None:
            self.stats.actions += 1
            self.stats.actions_by_game[self.game] += 1
        elif "went wrong" in reason.group(1):  # the consumer's answer to a failure of its own
            self.stats.error(f"websocket move at table {self.table_id}: {reason.group(1)}")
        else:
            self.stats.refused += 1  # e.g. a simultaneous phase moved on: a legitimate refusal
            player.sent_at.pop(key, None)
        board = parse_board(message, self.board)
        if board is not None:
            self.board = board
        elif reason is not None:  # refused and nothing changed: not the same click at once
            await asyncio.sleep(0.2)


@dataclass
class Board:
    version: int
    my_turn: bool
    running: bool
    actions: list[str] = field(default_factory=list)
    """The private part's action buttons' values (JSON), as the page offers them."""
    digest: str = ""
    """The private part's ``data-digest``, which the page's hello names."""


PUBLIC_TAG = re.compile(r'<div id="board-public"[^>]*>')
PRIVATE_TAG = re.compile(r'<div id="board-private"[^>]*>')
MESSAGE_TAG = re.compile(r'<div id="board-message"[^>]*>')
REFUSAL = re.compile(r'<p class="message error"[^>]*>(.*?)</p>', re.S)
ACTION_BUTTON = re.compile(r'<button type="submit" name="action" value="([^"]*)"')
LIVE_POLL = 30.0  # seconds between a live page's pings and safety polls (table.js, public.html)
FALLBACK_POLL = 2.5  # seconds between a page's polls while it has no socket (TABLE_POLL_MS)
LIVE_UNAVAILABLE = 1013  # the server's close code: no channel layer now (games/live/consumers.py)


def poll_left(stop_at: float) -> float:
    return max(0.0, stop_at - time.monotonic())


def parse_board(html: str, previous: Board | None = None) -> Board | None:
    """The board a page shows once ``html`` (a page, a poll's or a move's answer, a push) is
    swapped in: the version and whether the game still runs (the public part polls) from
    ``#board-public``; this seat's turn, its action buttons and the digest from
    ``#board-private``. A part the message leaves out stays as the page had it
    (``previous``). None if the message carries neither part."""
    public, private = PUBLIC_TAG.search(html), PRIVATE_TAG.search(html)
    if public is None and private is None:
        return None
    if public is None and previous is None:
        return None
    board = Board(
        previous.version if previous else -1,
        previous.my_turn if previous else False,
        previous.running if previous else True,
        list(previous.actions) if previous else [],
        previous.digest if previous else "",
    )
    if public is not None:
        version = re.search(r'data-version="(\d+)"', public.group(0))
        if version is None:
            return None
        board.version = int(version.group(1))
        board.running = "hx-get=" in public.group(0)
    if private is not None:
        tag = private.group(0)
        digest = re.search(r'data-digest="([^"]*)"', tag)
        board.digest = digest.group(1) if digest else ""
        board.my_turn = 'data-my-turn="1"' in tag
        # The private part runs to the end of the message (both the board and a push put it
        # after the public part), or to the public part if that comes after.
        end = public.start() if public is not None and public.start() > private.start() else None
        part = html[private.start() : end]
        board.actions = [unescape(v) for v in ACTION_BUTTON.findall(part)] if board.my_turn else []
    return board


def seat_groups(players: int, games: list[tuple[str, int]] = GAMES) -> list[tuple[str, int, int]]:
    """Splits ``players`` into tables of each of ``games`` in turn: (game, seats, first
    player). A table is left out that would leave too few players for any other table,
    unless no game fits otherwise; players who fit no table sit out."""
    smallest = min(seats for _game, seats in games)
    groups, left, i, misses = [], players, 0, 0
    while left and misses < 2 * len(games):
        game, seats = games[i % len(games)]
        i += 1
        rest = left - seats
        if rest == 0 or rest >= smallest or (rest > 0 and misses >= len(games)):
            groups.append((game, seats, players - left))
            left, misses = rest, 0
        else:
            misses += 1
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


async def inject_fault(stack: Stack, kind: str, at: float, seconds: float, record: dict) -> None:
    """``redis-pause``: the private Redis hangs (SIGSTOP) for ``seconds``, then goes on
    (SIGCONT) with all it held; ``redis-restart``: it is killed, and ``seconds`` later a new
    one starts on its port, empty (no groups, no queued tasks, no cache)."""
    await asyncio.sleep(at)
    record["start"] = time.monotonic()
    if kind == "redis-pause":
        stack.redis_signal(signal.SIGSTOP)
    else:
        stack.redis_kill()
    print(f"fault: {kind} at {at:.0f} s for {seconds:.0f} s", flush=True)
    await asyncio.sleep(seconds)
    if kind == "redis-pause":
        stack.redis_signal(signal.SIGCONT)
    else:
        await asyncio.to_thread(stack.start_redis)
    record["end"] = time.monotonic()
    print("fault: over", flush=True)


def integrity(stack: Stack, stats: Stats, tables: list[tuple[str, int]]) -> dict[str, int]:
    """Moves the players were told were accepted, against the moves the database stored at
    the phase's tables (the bench seats no bot and no clock runs out, so every stored move is
    a player's); moves sent whose answer never came are counted apart."""
    ids = ",".join(str(table_id) for _game, table_id in tables) or "0"
    stored = int(stack.query(f"SELECT count(*) FROM games_move WHERE table_id IN ({ids})"))
    repeated = int(
        stack.query(
            "SELECT count(*) FROM (SELECT 1 FROM games_move"
            f" WHERE table_id IN ({ids}) GROUP BY table_id, seq HAVING count(*) > 1) AS twice"
        )
    )
    return {
        "accepted": stats.actions,
        "stored": stored,
        "unanswered": stats.unanswered,
        "stored_twice": repeated,
        "server_errors": sum(n for code, n in stats.statuses.items() if code >= 500)
        + sum(n for code, n in stats.refused_handshakes.items() if code >= 500),
    }


def fault_figures(args: argparse.Namespace, fault: dict, stats: Stats) -> dict:
    """What the fault cost: the longest action, the sockets closed and how, and how long each
    page took after the fault's end to get a push over a socket again."""
    end = fault.get("end")
    waits = []
    for moments in stats.pushes_at.values():
        after = [m for m in moments if end is not None and m >= end]
        if after:
            waits.append(min(after) - end)
    acts = stats.latency.get("act", [])
    return {
        "kind": args.fault,
        "seconds": args.fault_seconds,
        "longest_action_ms": round(max(acts), 1) if acts else None,
        "socket_closes": {str(code): n for code, n in stats.closes.items()},
        "refused_handshakes": {str(code): n for code, n in stats.refused_handshakes.items()},
        "pages_live_again": len(waits),
        "pages": len(stats.pushes_at),
        "live_again_s_p50": round(percentile(waits, 50), 1) if waits else None,
        "live_again_s_max": round(max(waits), 1) if waits else None,
    }


def print_integrity(phase: dict) -> None:
    figures = phase["integrity"]
    print(
        f"moves accepted {figures['accepted']}, stored {figures['stored']}"
        f" (unanswered {figures['unanswered']}, stored twice {figures['stored_twice']});"
        f" 5xx answers {figures['server_errors']}"
    )
    fault = phase.get("fault")
    if fault:
        print(
            f"fault {fault['kind']} for {fault['seconds']:g} s: longest action"
            f" {fault['longest_action_ms']} ms; sockets closed {fault['socket_closes']};"
            f" handshakes refused {fault['refused_handshakes']}; pages live again"
            f" {fault['pages_live_again']} of {fault['pages']}, after p50"
            f" {fault['live_again_s_p50']} s, at most {fault['live_again_s_max']} s"
        )


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
        total.actions_by_game.update(s.actions_by_game)
        total.refused += s.refused
        total.games_finished += s.games_finished
        for key, sizes in s.sizes.items():
            total.sizes[key] += sizes
        total.extensions.update(s.extensions)
        total.unanswered += s.unanswered
        total.closes.update(s.closes)
        total.refused_handshakes.update(s.refused_handshakes)
        for page, moments in s.pushes_at.items():
            total.pushes_at[page] += moments
    return total


async def run_phase(
    players: list[Player],
    seconds: float,
    poll: float | None,
    think: float,
    games: list[tuple[str, int]] = GAMES,
) -> tuple[Stats, float, list[tuple[str, int]]]:
    for p in players:
        p.stats = Stats()
    tables: list[tuple[str, int]] = []
    groups = seat_groups(len(players), games)
    seated = sum(seats for _game, seats, _first in groups)
    if seated < len(players):
        print(f"{len(players) - seated} players sit out: no table of {games} fits them")
    start = time.monotonic()
    stop_at = start + seconds
    await asyncio.gather(
        *(
            run_group(players[first : first + seats], game, stop_at, poll, think, tables)
            for game, seats, first in groups
        )
    )
    return merge([p.stats for p in players]), time.monotonic() - start, tables


def size_figures(stats: Stats) -> dict[str, dict[str, dict[str, int]]]:
    """Per game and kind of message: count, mean and maximum, raw, on the wire and compressed
    alone (a socket message deflated on its own: the bound without context takeover)."""
    figures: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    for (game, kind), sizes in sorted(stats.sizes.items()):
        figures[game][kind] = {"count": len(sizes)}
        for i, name in enumerate(("raw", "wire", "alone")):
            values = [size[i] for size in sizes]
            figures[game][kind][f"{name}_mean"] = round(sum(values) / len(values))
            figures[game][kind][f"{name}_max"] = max(values)
    return dict(figures)


def within_limit(kinds: dict[str, dict[str, int]]) -> bool | None:
    """Whether every push and every move's answer stayed within the limit on the wire: the
    frames as the socket sent them (with context takeover, as browsers agree it). Each message
    deflated alone is shown beside, for a client that would refuse context takeover."""
    maxima = [kinds[k]["wire_max"] for k in ("answer", "push") if k in kinds]
    return None if not maxima else max(maxima) <= WIRE_LIMIT


def peer_setup(folder: Path, source: Path) -> None:
    """The peer's scratch folder: its npm packages installed once (then reused), its three
    files copied afresh from ``source``."""
    folder.mkdir(parents=True, exist_ok=True)

    def installed(name: str, release: str) -> bool:
        manifest = folder / "node_modules" / name / "package.json"
        if not manifest.exists():
            return False
        version = json.loads(manifest.read_text()).get("version", "")
        return version == release or version.startswith(release + ".")

    if not all(installed(name, release) for name, release in PEER_PACKAGES.items()):
        print(f"installing the boardgame.io peer in {folder}", flush=True)
        if not (folder / "package.json").exists():
            subprocess.run(["npm", "init", "-y"], cwd=folder, check=True, capture_output=True)
        packages = [f"{name}@{release}" for name, release in PEER_PACKAGES.items()]
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", *packages],
            cwd=folder,
            check=True,
            capture_output=True,
        )
    for name in PEER_FILES:
        shutil.copy2(source / name, folder / name)


def peer_run(folder: Path, matches: int, seconds: float, flatfile: bool) -> dict:
    """One run of the peer: its server (FlatFile storage in a fresh folder, or in memory) and
    its load generator, ``matches`` District Noir matches of two clients for ``seconds``
    (after its own 2 s of warming up); its one line of figures, parsed."""
    port = free_port()
    env = {**os.environ, "PEER_PORT": str(port)}
    command = ["node", "server.js"]
    store = Path(tempfile.mkdtemp(prefix="flatfile-", dir=folder)) if flatfile else None
    if store is not None:
        command += ["--flatfile", str(store)]
    with (folder / "server.log").open("w") as log:
        server = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=log)
    try:
        wait_for_port(port, 30)
        out = subprocess.run(
            ["node", "load.js", str(matches), f"{seconds:g}"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=seconds + 120,
        )
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        if store is not None:
            shutil.rmtree(store, ignore_errors=True)
    match = PEER_LINE.search(out.stdout)
    if match is None:
        tail = (out.stdout + out.stderr).strip().splitlines()[-3:]
        return {"storage": "flatfile" if flatfile else "memory", "moves_per_s": None, "out": tail}
    figures: dict = {"storage": "flatfile" if flatfile else "memory", "line": match.group(0)}
    for key, value in match.groupdict().items():
        if key == "release":
            figures[key] = value
        elif key in ("matches", "games_finished", "errors"):
            figures[key] = int(value)
        else:
            try:
                figures[key] = float(value)
            except ValueError:  # "n/a": no move measured
                figures[key] = None
    return figures


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
    games = [(game, seats) for game, seats in GAMES if game in args.games]
    # The peer runs right after the phase nearest its client count (two a match).
    peer_after = min(sizes, key=lambda n: (abs(n - 2 * args.peer_matches), -n))
    stack = Stack(args.server, args.servers, max(sizes), args.keep_logs, args.ws)
    result: dict = {
        "phases": [],
        "load_before": os.getloadavg(),
        "setup": {
            "server": f"{args.server} x{args.servers}",
            "pages": "live (websocket)" if args.live else f"polling every {args.poll} s",
            "think_s": args.think,
            "games": [game for game, _seats in games],
        },
    }
    peer_folder = Path(args.peer_dir)
    if args.peer:  # before the stack starts: an npm install is no part of any measurement
        peer_setup(peer_folder, Path(args.peer_source))
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
            fault: dict = {}
            injecting = None
            if args.fault:
                at = args.seconds / 3 if args.fault_at is None else args.fault_at
                injecting = asyncio.ensure_future(
                    inject_fault(stack, args.fault, at, args.fault_seconds, fault)
                )
            stats, elapsed, tables = await run_phase(
                players[:n], args.seconds, None if args.live else args.poll, args.think, games
            )
            if injecting is not None:
                await injecting
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
                "actions_per_s_by_game": {
                    game: round(count / elapsed, 1)
                    for game, count in sorted(stats.actions_by_game.items())
                },
                "requests_per_s": round(sum(map(len, stats.latency.values())) / elapsed, 1),
                "games_finished": stats.games_finished,
                "refused": stats.refused,
                "errors": stats.errors,
                "error_samples": stats.error_samples,
                "statuses": dict(stats.statuses),
                "websocket_extensions": dict(stats.extensions),
                "latency_ms": {
                    kind: {
                        "count": len(v),
                        "p50": round(percentile(v, 50), 1),
                        "p95": round(percentile(v, 95), 1),
                        "p99": round(percentile(v, 99), 1),
                    }
                    for kind, v in sorted(stats.latency.items())
                },
                "message_bytes": size_figures(stats),
                "cpu_ms_per_action": cpu_ms_per_action,
                "integrity": integrity(stack, stats, tables),
            }
            if args.fault:
                phase["fault"] = fault_figures(args, fault, stats)
            result["phases"].append(phase)
            print(
                f"\n## {n} players, {elapsed:.0f} s: {phase['actions_per_s']} actions/s, "
                f"{stats.games_finished} games finished, {stats.errors} errors, "
                f"{stats.refused} refused",
                flush=True,
            )
            print(
                "actions/s by game: "
                + ", ".join(f"{g} {r}" for g, r in phase["actions_per_s_by_game"].items())
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
            if args.live:
                print(deflate_sentence(stats.extensions))
            print_sizes(phase["message_bytes"], args.live)
            print_integrity(phase)
            if args.peer and n == peer_after:
                result["peer"] = run_peer(args, peer_folder, phase)

        loads = {}
        for game, _seats in games:
            table_id = next((t for g, t in reversed(last_tables) if g == game), None)
            if table_id is not None:
                loads[game] = await first_load(players[0], table_id)
        messages = result["phases"][-1]["message_bytes"] if result["phases"] else {}
        result["bytes"] = {"first_load": loads, "message_per_move": messages}
        print("\n| game | first load: files | bytes on the wire | bytes unpacked | HTML |")
        print("|---|---|---|---|---|")
        for game, load in loads.items():
            print(
                f"| {game} | {load['files']} | {load['wire_bytes']} | {load['raw_bytes']} | "
                f"{load['html_bytes']} |"
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


def run_peer(args: argparse.Namespace, folder: Path, phase: dict) -> dict:
    """The boardgame.io peer right after our phase (not beside it), for as many seconds, in
    FlatFile storage and in memory; the ratio of our District Noir rate to each."""
    ours = phase["actions_per_s_by_game"].get("district-noir", 0.0)
    peer: dict = {
        "after_players": phase["players"],
        "matches": args.peer_matches,
        "seconds": args.seconds,
        "ours_district_noir_per_s": ours,
    }
    print(
        f"\nboardgame.io peer, District Noir, {args.peer_matches} matches "
        f"({2 * args.peer_matches} clients), {args.seconds:g} s each:",
        flush=True,
    )
    for flatfile in (True, False):
        figures = peer_run(folder, args.peer_matches, args.seconds, flatfile)
        rate = figures.get("moves_per_s")
        figures["ratio"] = round(ours / rate, 3) if rate else None
        peer[figures["storage"]] = figures
        if rate is None:
            print(f"  {figures['storage']}: no figures: {figures.get('out')}")
            continue
        print(
            f"  {figures['storage']}: {figures['line']}\n"
            f"    our District Noir {ours} moves/s at {phase['players']} players ="
            f" {figures['ratio']:.3f}x its rate",
            flush=True,
        )
    ratio = peer["flatfile"].get("ratio")
    if ratio is not None:
        verdict = "met" if ratio >= 0.25 else "missed"
        setup = ""
        if phase["players"] != 2 * args.peer_matches or args.games != ["district-noir"]:
            setup = f"; this run is not the aim's setup ({phase['players']} players, {args.games})"
        print(
            "  aim (issue 17, District Noir only, 32 players): at least 0.25x the FlatFile"
            f" rate: {verdict} ({ratio:.3f}x{setup})"
        )
    return peer


def deflate_sentence(extensions: dict[str, int]) -> str:
    sockets = sum(extensions.values())
    deflate = {k: v for k, v in extensions.items() if "permessage-deflate" in k}
    if not sockets:
        return "websocket: no socket opened"
    if not deflate:
        return f"websocket permessage-deflate: not negotiated (0 of {sockets} sockets)"
    answers = "; ".join(f"`{k}`" for k in deflate)
    return (
        f"websocket permessage-deflate: negotiated on {sum(deflate.values())} of {sockets}"
        f" sockets ({answers})"
    )


def size_cell(figures: dict[str, int] | None, alone: bool = False) -> str:
    """Mean / max, raw → on the wire (and, ``alone``, → compressed on its own)."""
    if not figures:
        return "-"
    cell = (
        f"{figures['raw_mean']:,} / {figures['raw_max']:,} → "
        f"{figures['wire_mean']:,} / {figures['wire_max']:,}"
    )
    if alone:
        cell += f" (alone {figures['alone_mean']:,} / {figures['alone_max']:,})"
    return cell


def verdict(kinds: dict[str, dict[str, int]]) -> str:
    ok = within_limit(kinds)
    return "-" if ok is None else ("yes" if ok else "no")


def print_sizes(messages: dict[str, dict[str, dict[str, int]]], live: bool) -> None:
    how = "socket frames (deflated alone)" if live else "gzip"
    print(
        f"\nbytes per message, mean / max: raw → on the wire; answers: {how}; pushes: socket"
        " frames (deflated alone); polls: gzip"
    )
    print(
        f"| game | move's answer | push | poll answer | ≤ {WIRE_LIMIT:,} B on the wire |"
        "\n|---|---|---|---|---|"
    )
    for game, kinds in messages.items():
        print(
            f"| {game} | {size_cell(kinds.get('answer'), live)}"
            f" | {size_cell(kinds.get('push'), True)} | {size_cell(kinds.get('poll'))}"
            f" | {verdict(kinds)} |"
        )


def markdown(result: dict, command: str) -> str:
    """The run's figures, as the section this bench writes into docs/benchmarks.md."""
    setup, phases = result["setup"], result["phases"]
    before, after = result["load_before"][0], result.get("load_after", (0.0,))[0]
    live = setup["pages"].startswith("live")

    def lat(phase: dict, kind: str) -> str:
        figures = phase["latency_ms"].get(kind)
        if not figures:
            return "-"
        return f"{figures['p50']:.0f} / {figures['p95']:.0f} / {figures['p99']:.0f}"

    act = "action over the socket" if live else "action post"
    lines = [
        "### Latest run (written by `bench/load.py`)",
        "",
        f"`{command}` on {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC:"
        f" {setup['server']}, pages {setup['pages']}, thinking time {setup['think_s']} s,"
        f" games {', '.join(setup.get('games', []))};"
        f" {os.cpu_count()} CPUs, load average {before:.1f} before and {after:.1f} after.",
        "",
        f"| N players | actions/s | District Noir actions/s | {act} p50 / p95 / p99 ms"
        " | push p50 / p95 / p99 ms | page p50 / p95 / p99 ms | web CPU ms per action"
        " | PostgreSQL CPU ms per action | share of pgbench | errors | refused |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for phase in phases:
        cpu = phase["cpu_ms_per_action"]
        share = phase.get("ratio_to_pgbench")
        noir = phase.get("actions_per_s_by_game", {}).get("district-noir", "-")
        lines.append(
            f"| {phase['players']} | {phase['actions_per_s']} | {noir} | {lat(phase, 'act')}"
            f" | {lat(phase, 'push')} | {lat(phase, 'page')} | {cpu.get('web', 0)}"
            f" | {cpu.get('postgres', 0)} | {'-' if share is None else f'{100 * share:.1f}%'}"
            f" | {phase['errors']} | {phase['refused']} |"
        )
    lines += ["", f"pgbench, the move-shaped transaction: {result.get('pgbench_tps', 0):.0f} tps."]
    peer = result.get("peer")
    if peer:
        rates = []
        for storage, label in (("flatfile", "FlatFile storage"), ("memory", "in memory")):
            figures = peer.get(storage, {})
            if figures.get("moves_per_s") is None:
                rates.append(f"{label}: no figures")
                continue
            rates.append(
                f"{label} {figures['moves_per_s']:.0f} moves/s (p95 {figures['p95']} ms),"
                f" ours **{figures['ratio']:.3f}x** of it"
            )
        lines += [
            "",
            f"boardgame.io 0.50.2 (`../shared/bench/peer-bgio/`), District Noir,"
            f" {peer['matches']} matches ({2 * peer['matches']} clients), {peer['seconds']:g} s,"
            f" right after the {peer['after_players']}-player phase; our District Noir rate"
            f" {peer['ours_district_noir_per_s']} moves/s: " + "; ".join(rates) + ". Aim:"
            " at least 0.25x the FlatFile rate (District Noir only, 32 players).",
        ]
    if live and phases:
        lines += ["", deflate_sentence(phases[-1].get("websocket_extensions", {})) + "."]
    push = "push" if live else "poll answer (whole board)"
    wire = (
        "the socket's frames as received, headers included (permessage-deflate with context"
        " takeover), and in brackets each message deflated alone with the server's window"
        " (the bound without context takeover)"
        if live
        else "gzip, as downloaded"
    )
    lines += [
        "",
        f"Bytes per message, mean / max, raw → on the wire: {wire}. The limit is"
        f" {WIRE_LIMIT:,} B on the wire for a push and a move's answer.",
        "",
        "| game | first load: files | bytes on the wire | bytes unpacked | HTML"
        f" | move's answer | {push} | within {WIRE_LIMIT:,} B |",
        "|---|---|---|---|---|---|---|---|",
    ]
    messages = result.get("bytes", {}).get("message_per_move", {})
    for game, load in result.get("bytes", {}).get("first_load", {}).items():
        kinds = messages.get(game, {})
        lines.append(
            f"| {game} | {load['files']} | {load['wire_bytes']:,} | {load['raw_bytes']:,}"
            f" | {load['html_bytes']:,} | {size_cell(kinds.get('answer'), live)}"
            f" | {size_cell(kinds.get('push' if live else 'poll'), live)} | {verdict(kinds)} |"
        )
    return "\n".join(lines) + "\n"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="8,32,128", help="comma-separated N")
    parser.add_argument("--seconds", type=float, default=40, help="play time per N")
    parser.add_argument(
        "--games",
        default=",".join(game for game, _seats in GAMES),
        help="comma-separated games whose tables the players sit at (e.g. district-noir)",
    )
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
        "--ws",
        default="config.websocket:WideWindowProtocol",
        help="uvicorn's websocket implementation (the site's own, auto, websockets, ...)",
    )
    parser.add_argument(
        "--live",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="pages with their websocket open, moves over it (else HTTP posts and polls"
        " every --poll seconds)",
    )
    parser.add_argument(
        "--peer",
        action="store_true",
        help="also run the boardgame.io peer (District Noir, FlatFile and in memory) right"
        " after the phase nearest its client count, and print our rate's ratio to it",
    )
    parser.add_argument("--peer-matches", type=int, default=16, help="two clients each")
    parser.add_argument("--peer-source", default=str(PEER_SOURCE), help="the peer's files")
    parser.add_argument(
        "--peer-dir", default=str(PEER_DIR), help="scratch folder for its npm packages"
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
    parser.add_argument(
        "--no-write",
        action="store_true",
        help="write no file's section (a test run): the same as --out ''",
    )
    parser.add_argument("--keep-logs", action="store_true")
    parser.add_argument(
        "--fault",
        choices=("redis-pause", "redis-restart"),
        help="in the middle of each phase, pause the private Redis (SIGSTOP, then SIGCONT) or"
        " kill it and start it again empty; report what it cost",
    )
    parser.add_argument(
        "--fault-at", type=float, help="seconds into the phase (default: a third of it)"
    )
    parser.add_argument("--fault-seconds", type=float, default=15.0, help="how long it lasts")
    args = parser.parse_args()
    args.games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = set(args.games) - {game for game, _seats in GAMES}
    if unknown or not args.games:
        parser.error(f"--games: unknown {sorted(unknown)}; known: {[g for g, _s in GAMES]}")
    if args.no_write:
        args.out = ""
    return args


if __name__ == "__main__":
    arguments = parse_args()
    figures = asyncio.run(main(arguments))
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(figures, indent=2))
    if arguments.out:
        command = " ".join([".venv/bin/python bench/load.py", *sys.argv[1:]])
        write_section(Path(arguments.out), markdown(figures, command), source="bench/load.py")
        print(f"wrote {arguments.out}")
