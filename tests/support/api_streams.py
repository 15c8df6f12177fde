"""The API's NDJSON streams read from a live server, for the tests (and the same server started
as start_asgi_server does it).

``StreamReader`` opens one stream in a thread of its own (httpx, blocking) and puts each line,
parsed, with the moment it arrived, into a queue; the test waits for the line it needs
(``wait_for``) with a timeout, never for a fixed time. ``close`` shuts its socket, which wakes
the thread at once even in the middle of a read.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.support.processes import database_url, start_uvicorn

Line = dict[str, Any]
WAIT = 15.0  # seconds a test waits for a line it expects, unless told otherwise


def start_api_server(
    settings_dict: dict[str, Any], overrides: dict[str, str] | None = None
) -> tuple[str, subprocess.Popen]:
    """uvicorn (as in production) on the test database, in a process of its own, with the
    test's environment (its Redis databases: the channel layer is shared) and ``overrides``."""
    env = dict(os.environ)  # keeps PYTEST_VERSION: the server uses the test settings
    env.update(DATABASE_URL=database_url(settings_dict), TASKS_MODE="thread")
    env.update(overrides or {})
    for name in ("API_STREAM_KEEP_ALIVE", "API_STREAM_TOKEN_CHECK"):
        if name not in (overrides or {}):
            env.pop(name, None)  # the site's defaults, unless the test says otherwise
    port, process = start_uvicorn(env, "--timeout-graceful-shutdown", "1", seconds=30)
    return f"http://127.0.0.1:{port}", process


@dataclass
class Received:
    line: Line
    at: float  # time.monotonic() when it was read


END = object()


@dataclass
class StreamReader:
    """One stream of ``base`` + ``path`` with the bearer ``secret``, read in a thread."""

    base: str
    path: str
    secret: str
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # a refusal's JSON (the status is not 200)
    seen: list[Received] = field(default_factory=list)  # every line taken from the queue
    ended_at: float | None = None  # when the server ended the stream
    error: BaseException | None = None

    def __post_init__(self) -> None:
        self._queue: queue.Queue[Any] = queue.Queue()
        self._opened = threading.Event()
        self._socket: socket.socket | None = None
        self._closing = False
        self._thread = threading.Thread(target=self._read, daemon=True, name=f"read {self.path}")

    def start(self, seconds: float = WAIT) -> StreamReader:
        """Opens the stream and waits for its status and headers."""
        self._thread.start()
        if not self._opened.wait(seconds):
            raise TimeoutError(f"{self.path}: no answer in {seconds:g} s")
        if self.error is not None and self.status is None:
            raise RuntimeError(f"{self.path}: {self.error!r}")
        return self

    def _read(self) -> None:
        timeout = httpx.Timeout(10.0, read=None)  # a stream may be quiet for long
        try:
            with (
                httpx.Client(timeout=timeout) as client,
                client.stream(
                    "GET",
                    self.base + self.path,
                    headers={"Authorization": f"Bearer {self.secret}"},
                ) as response,
            ):
                stream = response.extensions.get("network_stream")
                if stream is not None:
                    self._socket = stream.get_extra_info("socket")
                self.status = response.status_code
                self.headers = dict(response.headers)
                if self.status != 200:
                    response.read()
                    self.body = response.json()
                    self._opened.set()
                    return
                self._opened.set()
                for text in response.iter_lines():
                    if text:
                        self._queue.put(Received(json.loads(text), time.monotonic()))
            self.ended_at = time.monotonic()
        except Exception as exc:  # the test closed it, or the server broke it
            if not self._closing:
                self.error = exc
        finally:
            self._opened.set()
            self._queue.put(END)

    def next(self, seconds: float = WAIT) -> Received | None:
        """The next line, or None when the stream ended; ``TimeoutError`` after ``seconds``."""
        try:
            item = self._queue.get(timeout=seconds)
        except queue.Empty:
            raise TimeoutError(
                f"{self.path}: no line in {seconds:g} s; seen {self.types()}"
            ) from None
        if item is END:
            self._queue.put(END)  # it stays ended for every later call
            return None
        self.seen.append(item)
        return item

    def wait_for(
        self, matches: Callable[[Line], bool], what: str, seconds: float = WAIT
    ) -> Received:
        """The first line from now on that ``matches``; the lines before it are skipped (and
        kept in ``seen``). ``TimeoutError`` after ``seconds``, ``AssertionError`` if the stream
        ends first."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.path}: no {what} in {seconds:g} s; seen {self.types()}")
            try:
                received = self.next(left)
            except TimeoutError:
                raise TimeoutError(
                    f"{self.path}: no {what} in {seconds:g} s; seen {self.types()}"
                ) from None
            if received is None:
                raise AssertionError(
                    f"{self.path} ended before {what}; seen {self.types()} {self.error or ''}"
                )
            if matches(received.line):
                return received

    def wait_type(self, kind: str, seconds: float = WAIT, **fields: Any) -> Line:
        """The next line of type ``kind`` whose ``table``/``challenge`` ... fields match."""

        def matches(line: Line) -> bool:
            return line.get("type") == kind and all(
                _field(line, name) == value for name, value in fields.items()
            )

        described = kind + (f" {fields}" if fields else "")
        return self.wait_for(matches, described, seconds).line

    def wait_end(self, seconds: float = WAIT) -> list[Line]:
        """Waits until the server ends the stream; the lines that came meanwhile."""
        lines = []
        deadline = time.monotonic() + seconds
        while True:
            received = self.next(max(deadline - time.monotonic(), 0.001))
            if received is None:
                return lines
            lines.append(received.line)

    def types(self) -> list[str]:
        return [str(item.line.get("type")) for item in self.seen]

    def close(self) -> None:
        """Ends the stream from this side: shuts the socket (which wakes the reading thread)."""
        self._closing = True
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
        self._thread.join(5)

    def __enter__(self) -> StreamReader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _field(line: Line, name: str) -> Any:
    """``table_id`` is ``line["table"]["id"]``, ``challenge_id`` ``line["challenge"]["id"]``,
    anything else ``line[name]``."""
    if name.endswith("_id"):
        return (line.get(name.removesuffix("_id")) or {}).get("id")
    return line.get(name)
