"""The processes that the tests and the benches start on this machine, written once: a free
port, waiting for a condition (a port that answers), a private redis-server, the ASGI server
(uvicorn, as in production), a Celery worker's command line, and PostgreSQL databases (the URL
of the one Django is connected to, a fresh one for a bench).

Plain Python, no pytest and no Django at import: ``bench/load`` uses it too. A wait that runs
out raises ``TimeoutError``, which fails a test as plainly as ``pytest.fail`` would.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
# The site's websocket protocol (config/websocket.py: a 32 KB deflate window), as in production.
WIDE_WINDOW = "config.websocket:WideWindowProtocol"
PG_HOST = os.environ.get("PGHOST", HOST)
PG_PORT = os.environ.get("PGPORT", "5432")
PG_USER = os.environ.get("PGUSER", "postgres")
PG_ARGS = ["-h", PG_HOST, "-p", PG_PORT, "-U", PG_USER]

T = TypeVar("T")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def wait_for(condition: Callable[[], T], what: str, seconds: float = 60, every: float = 0.1) -> T:
    """What ``condition()`` returns once it is true; ``TimeoutError`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        result = condition()
        if result:
            return result
        if time.monotonic() >= deadline:
            raise TimeoutError(f"timed out waiting for {what} ({seconds:g} s)")
        time.sleep(every)


def answers(port: int) -> bool:
    """Whether something accepts connections on ``port``."""
    try:
        socket.create_connection((HOST, port), timeout=0.5).close()
    except OSError:
        return False
    return True


def wait_for_port(
    port: int, seconds: float = 30, process: subprocess.Popen | None = None, what: str = ""
) -> None:
    """Waits until something answers on ``port``; with ``process`` (what should answer), a
    ``RuntimeError`` as soon as it exits, and it is killed if it never answers."""
    name = what or f"port {port}"

    def up() -> bool:
        if process is not None and process.poll() is not None:
            error = process.stderr.read() if process.stderr else ""
            raise RuntimeError(f"{name} exited at once (status {process.returncode}) {error}")
        return answers(port)

    try:
        wait_for(up, f"{name} to listen on port {port}", seconds, every=0.05)
    except TimeoutError:
        if process is not None:
            process.kill()
        raise


def stop(process: subprocess.Popen, seconds: float = 10) -> None:
    """Asks ``process`` to end (SIGTERM); kills it if it is still there after ``seconds``."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(seconds)


class RedisServer:
    """A redis-server of the caller's own on a free port (never the shared one), empty: no
    snapshot, no append-only file. It may be paused (SIGSTOP: its connections stay open and
    nothing answers), resumed, killed (all it held is lost) and started again, empty, on the
    same port."""

    def __init__(self, log: Path | None = None) -> None:
        """``log``: a file for the server's output (appended to), else it is dropped."""
        self.port = free_port()
        self.log = log
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return self.url_of(0)

    def url_of(self, database: int) -> str:
        return f"redis://{HOST}:{self.port}/{database}"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", HOST]
        command += ["--save", "", "--appendonly", "no"]
        out: IO[Any] | int = self.log.open("a") if self.log else subprocess.DEVNULL
        self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        import redis

        client = redis.Redis(host=HOST, port=self.port, socket_connect_timeout=0.2)
        wait_for(lambda: _pings(client), f"the private Redis on port {self.port}", 20)

    def pause(self) -> None:
        self._signal(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal(signal.SIGCONT)

    def kill(self) -> None:
        """Kills it at once: no goodbye to its clients, everything it held lost."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.resume()  # a paused Redis would not hear the signal that ends it
        self.kill()

    def _signal(self, sig: int) -> None:
        assert self.process is not None, "the private Redis is not running"
        os.kill(self.process.pid, sig)


def _pings(client: Any) -> bool:
    try:
        return bool(client.ping())
    except Exception:
        return False


def uvicorn_command(port: int, *options: str, ws: str = WIDE_WINDOW) -> list[str]:
    """uvicorn serving the site on ``port`` as production does (its websocket protocol
    ``ws``); ``options``: more of uvicorn's (``--workers 2``, ``--no-access-log``...)."""
    command = [sys.executable, "-m", "uvicorn", "--host", HOST, "--port", str(port)]
    command += ["--ws", ws, "--log-level", "warning", *options]
    return [*command, "config.asgi:application"]


def start_uvicorn(
    env: Mapping[str, str],
    *options: str,
    ws: str = WIDE_WINDOW,
    log: IO[Any] | None = None,
    seconds: float = 60,
) -> tuple[int, subprocess.Popen]:
    """Starts uvicorn (``uvicorn_command``) on a free port with the environment ``env`` and
    waits until it answers; (its port, its process). Its output goes to ``log``, else nowhere."""
    port = free_port()
    out: IO[Any] | int = log if log is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        uvicorn_command(port, *options, ws=ws),
        cwd=ROOT,
        env=dict(env),
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    wait_for_port(port, seconds, process, "uvicorn")
    return port, process


def celery_worker_command(*options: str) -> list[str]:
    """``celery worker`` for the site's app; ``options``: its queue, pool, concurrency..."""
    command = [sys.executable, "-m", "celery", "-A", "config", "worker"]
    return [*command, "--without-gossip", "--without-mingle", *options]


def database_url(settings: Mapping[str, Any]) -> str:
    """The URL of the database Django is connected to (``connection.settings_dict``: the test
    database, in a test), for a process of another's: a server, a worker."""
    auth = settings["USER"] + (f":{settings['PASSWORD']}" if settings.get("PASSWORD") else "")
    host, port = settings["HOST"] or HOST, settings["PORT"] or 5432
    return f"postgres://{auth}@{host}:{port}/{settings['NAME']}"


def postgres_url(name: str) -> str:
    """The URL of the PostgreSQL database ``name`` (PGHOST, PGPORT, PGUSER)."""
    return f"postgres://{PG_USER}@{PG_HOST}:{PG_PORT}/{name}"


def database_create(prefix: str) -> str:
    """A fresh, empty PostgreSQL database, ``<prefix>_<random>``; its name."""
    name = f"{prefix}_{os.urandom(4).hex()}"
    subprocess.run(["createdb", *PG_ARGS, name], check=True)
    return name


def database_drop(name: str) -> None:
    """Drops the database ``name``, closing whatever is still connected to it."""
    subprocess.run(["dropdb", *PG_ARGS, "--if-exists", "--force", name], check=False)
