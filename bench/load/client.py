"""A player's browser over HTTP: it signs in, opens and joins tables through the lobby's forms,
loads a table's page, polls its board and posts its moves as a page without a socket does
(live.py: the same page with its websocket open)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time

import httpx

from bench.load.board import DONE, Board, FormParser, parse_board
from bench.load.players import PASSWORD
from bench.load.stats import Stats


def poll_left(stop_at: float) -> float:
    return max(0.0, stop_at - time.monotonic())


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
        self.chat_every = 0.0  # seconds between this player's chat lines (live pages; 0: none)
        self.chat_sent: dict[str, float] = {}  # a line's token -> when it went over the socket
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

    def group_sent_at(self, table_id: int, version: int) -> float | None:
        """When someone at this table sent the move that made ``version + 1``."""
        for other in self.table_mates:
            if (table_id, version) in other.sent_at:
                return other.sent_at[(table_id, version)]
        return None
