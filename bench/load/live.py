"""A table page with its websocket open, as a live browser has it: the page loads, opens its
socket and says which board it shows (``{"hello": version, "digest": private digest}``); every
change arrives pushed, as the parts of the board that changed for this page; a move goes over
the socket and its answer comes back on it. When the socket closes, the page falls back to
polling over HTTP (client.py) and opens it again later, as static/js/table.js does."""

from __future__ import annotations

import asyncio
import json
import math
import re
import secrets
import time

import websockets

from bench.load.board import MESSAGE_TAG, PUBLIC_TAG, REFUSAL, Board, parse_board
from bench.load.client import Player
from bench.load.stats import Stats
from bench.load.wire import CountingDeflateFactory, WireCount

ANSWER_TIMEOUT = 60.0  # seconds a page waits for its move's answer on the socket
LIVE_POLL = 30.0  # seconds between a live page's pings and safety polls (table.js, public.html)
FALLBACK_POLL = 2.5  # seconds between a page's polls while it has no socket (TABLE_POLL_MS)
LIVE_UNAVAILABLE = 1013  # the server's close code: no channel layer now (games/live/consumers.py)
# A chat line pushed to a page (community/chat/pushed_line.html), and the bench's token in it.
CHAT_LINE = re.compile(r'id="chat-lines-[a-z]+"')
CHAT_TOKEN = re.compile(r"bench-line-([0-9a-f]{16})")
CHAT_ANSWER = re.compile(r'id="chat-status-[a-z]+"')
CHAT_REFUSED = re.compile(r'class="chat-status refused"[^>]*>([^<]*)<')


async def play_live(player: Player, table_id: int, game: str, stop_at: float, think: float) -> bool:
    """Plays at one table with the page's websocket open, as a live browser does: the page
    loads, opens its socket and says which board it shows; each change arrives pushed, as
    the parts that changed for this page; moves go over the socket and are answered on it.

    When the socket closes (the server's 1013 when it has no channel layer, or a drop), the
    page does what static/js/table.js does: it polls at once and then every
    ``FALLBACK_POLL`` seconds, moving over HTTP, and opens its socket again after a pause
    that doubles up to 10 s (from 1 s; afresh once a socket stayed open 5 s)."""
    page = await player.request("page", "GET", f"/t/{table_id}/")
    board = parse_board(page.text) if page is not None and page.status_code == 200 else None
    # As the page: its socket carries the page's id (the server then spares this socket
    # the push of its own moves: their answer already brought the new board).
    player.page_id = secrets.token_urlsafe(12)
    failures = 0
    while time.monotonic() < stop_at:
        if board is not None and not board.running:
            return True
        opened = time.monotonic()
        ended, board = await live_session(player, table_id, game, stop_at, think, board)
        if ended is not None:
            return ended
        failures = 1 if time.monotonic() - opened > 5 else failures + 1
        most = min(10.0, 2.0**failures)
        again = time.monotonic() + most / 2 + player.rng.random() * most / 2
        ended, board = await player.play_http(
            table_id, game, min(stop_at, again), FALLBACK_POLL, think, board, poll_first=True
        )
        if ended:
            return True
    return False


async def live_session(
    player: Player, table_id: int, game: str, stop_at: float, think: float, board: Board | None
) -> tuple[bool | None, Board | None]:
    """One socket of the page, from its opening to the game's end or the time's (True,
    False), or to its closing (None); and the board the page shows then."""
    url = player.base.replace("http://", "ws://") + f"/ws/t/{table_id}/?page={player.page_id}"
    cookie = "; ".join(f"{k}={v}" for k, v in player.client.cookies.items())
    count = WireCount()
    try:
        socket_ = await websockets.connect(  # offers permessage-deflate, as browsers do
            url,
            additional_headers={"Cookie": cookie, "Origin": player.base},
            max_size=2**23,
            open_timeout=60,
            extensions=[CountingDeflateFactory(count)],
        )
    except websockets.InvalidStatus as exc:
        status = exc.response.status_code
        player.stats.refused_handshakes[status] += 1
        if status >= 500:
            player.stats.error(f"websocket {url}: refused with {status}")
        return None, board
    except (TimeoutError, OSError, websockets.WebSocketException) as exc:
        player.stats.error(f"websocket {url}: {exc.__class__.__name__} {exc}")
        return None, board
    response = socket_.response
    extensions = response.headers.get("Sec-WebSocket-Extensions", "") if response else ""
    player.stats.extensions[extensions] += 1
    live = LivePage(player, socket_, count, table_id, game, board)
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
        player.stats.closes[code] += 1
        if code != LIVE_UNAVAILABLE:
            player.stats.error(f"websocket {url}: {exc.__class__.__name__} {exc}")
        if live.pending:
            player.stats.unanswered += 1
        return None, live.board
    finally:
        await socket_.close()


CHAT_WORDS = ["nice", "move", "hmm", "again", "good", "luck", "wow", "your", "turn", "cards"]


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
        self.next_chat = self.chat_due()  # when this page's player writes their next line

    @property
    def stats(self) -> Stats:
        return self.player.stats

    def chat_due(self) -> float:
        every = self.player.chat_every
        return time.monotonic() + self.player.rng.uniform(0.5, 1.5) * every if every else math.inf

    async def say(self) -> None:
        """A line in the players' room, over the socket (static/js/community/chat.js): its
        token lets the other seats' pages time its push."""
        token = secrets.token_hex(8)
        words = " ".join(self.player.rng.choice(CHAT_WORDS) for _ in range(4))
        self.player.chat_sent[token] = time.perf_counter()
        text = f"{words} bench-line-{token}"
        await self.socket.send(json.dumps({"chat_text": text, "room": "players"}))

    def chat_message(self, message: str) -> bool:
        """A chat line pushed to this page, or the answer to this page's own line: timed and
        counted; False for anything else."""
        if CHAT_LINE.search(message):
            self.record("chat", message)
            found = CHAT_TOKEN.search(message)
            if found is not None:
                for mate in self.player.table_mates:
                    if mate is not self.player and found.group(1) in mate.chat_sent:
                        sent = mate.chat_sent[found.group(1)]
                        self.stats.latency["chat push"].append((time.perf_counter() - sent) * 1000)
            return True
        if CHAT_ANSWER.search(message):
            refused = CHAT_REFUSED.search(message)
            if refused is not None:
                self.stats.error(f"a chat line at table {self.table_id}: {refused.group(1)}")
            return True
        return False

    async def receive(self, until: float) -> str | None:
        """The socket's next message, or None at ``until``; meanwhile, every 30 s, the page's
        ping (presence) and its safety poll."""
        while True:
            now = time.monotonic()
            if now >= until:
                return None
            if now >= self.next_chat:
                self.next_chat = self.chat_due()
                await self.say()
                continue
            if now >= self.next_tick:
                self.next_tick = now + LIVE_POLL
                await self.socket.send("ping")
                if self.board is not None:
                    self.board = await self.player.poll(self.table_id, self.game, self.board)
                continue
            try:
                message = await asyncio.wait_for(
                    self.socket.recv(), min(until, self.next_tick, self.next_chat) - now
                )
            except TimeoutError:
                continue
            self.wire = self.count.next()
            return message if isinstance(message, str) else message.decode()

    def record(self, kind: str, message: str) -> None:
        self.stats.socket_message(self.game, kind, message, self.wire, self.count.window_bits)

    def pushed(self, message: str) -> None:
        """A push: the parts of the board that changed for this page (or a chat line)."""
        if self.chat_message(message):
            return
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
