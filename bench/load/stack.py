"""The stack the load bench plays against, as in production and of its own: a fresh PostgreSQL
database, a private Redis, uvicorn with its worker processes (or daphne, one process a port),
a Celery worker; DEBUG off (``bench/settings.py``), the manifest static files that whitenoise
serves. Torn down after, the database dropped."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from tests.support.processes import (
    PG_ARGS,
    ROOT,
    RedisServer,
    celery_worker_command,
    database_create,
    database_drop,
    free_port,
    postgres_url,
    stop,
    uvicorn_command,
    wait_for_port,
)

BIN = Path(sys.executable).parent


class Stack:
    """PostgreSQL database, private Redis, web servers and a Celery worker, torn down after."""

    def __init__(
        self, server: str, servers: int, players: int, keep_logs: bool, ws: str = "auto"
    ) -> None:
        self.ws = ws  # uvicorn's websocket implementation (--ws)
        self.server, self.servers, self.players = server, servers, players
        self.keep_logs = keep_logs
        self.tmp = Path(tempfile.mkdtemp(prefix="cardtables-bench-"))
        self.db = ""
        self.procs: list[subprocess.Popen] = []
        self.roles: dict[str, list[int]] = defaultdict(list)  # role -> pids (with children)
        self.urls: list[str] = []
        self.env: dict[str, str] = {}
        self.redis = RedisServer(log=self.tmp / "redis.log")

    def _spawn(self, name: str, command: list[str], role: str = "") -> subprocess.Popen:
        log = (self.tmp / f"{name}.log").open("w")
        proc = subprocess.Popen(
            command, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT
        )
        self.procs.append(proc)
        self.roles[role or name].append(proc.pid)
        return proc

    def _python(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, *args], cwd=ROOT, env=self.env, check=True, stdout=subprocess.DEVNULL
        )

    def start(self) -> None:
        self.db = database_create("bench")
        self.env = {
            k: v for k, v in os.environ.items() if k not in ("PYTEST_VERSION", "DJANGO_DEBUG")
        }
        self.env.update(
            DATABASE_URL=postgres_url(self.db),
            REDIS_URL=self.redis.url,
            DJANGO_SETTINGS_MODULE="bench.settings",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            BENCH_STATIC_ROOT=str(self.tmp / "static"),
            TASKS_MODE="celery",
            LOG_LEVEL="WARNING",
        )
        self.start_redis()
        self._python("manage.py", "migrate", "--noinput")
        self._python("manage.py", "collectstatic", "--noinput")
        self._python("-m", "bench.load.players", "--players", str(self.players))
        if self.server == "uvicorn":  # one port, ``servers`` worker processes behind it
            ports = [free_port()]
            options = ["--workers", str(self.servers), "--no-access-log"]
            options += ["--timeout-keep-alive", "75"]
            self._spawn("uvicorn", uvicorn_command(ports[0], *options, ws=self.ws), role="web")
        else:  # daphne has no workers: one process per port
            ports = [free_port() for _ in range(self.servers)]
            for port in ports:
                command = [str(BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port)]
                self._spawn(f"daphne-{port}", [*command, "config.asgi:application"], role="web")
        self._spawn("celery", celery_worker_command("--concurrency", "1", "-l", "warning"))
        for port in ports:
            wait_for_port(port, 60)
        self.urls = [f"http://127.0.0.1:{port}" for port in ports]

    def start_redis(self) -> None:
        """The stack's private redis-server (empty), on the same port every time."""
        self.redis.start()
        assert self.redis.process is not None
        self.roles["redis"].append(self.redis.process.pid)

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
        self.redis.stop()
        for proc in reversed(self.procs):
            proc.terminate()
        for proc in reversed(self.procs):
            stop(proc, 15)
        if self.db:
            database_drop(self.db)
        if self.keep_logs:
            print(f"logs kept in {self.tmp}")
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)


def _postgres_counted(pid: int, database: str | None) -> bool:
    """Whether a ``postgres`` process is the stack's: the server's own (no client) or a
    backend connected to ``database``. Another database's backends (other work on the machine)
    come and go between two readings, which made PostgreSQL's difference negative."""
    if database is None:
        return True
    try:
        title = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return False
    # "postgres: 15/main: <user> <database> 127.0.0.1(<port>) idle" for a backend
    words = title.split()
    for index, word in enumerate(words[2:], start=2):
        if word == "[local]" or (word.endswith(")") and "(" in word):
            return words[index - 1] == database
    return True


def cpu_by_role(roles: dict[str, list[int]], database: str | None = None) -> dict[str, float]:
    """CPU seconds used so far by each role's processes and all their children, by
    PostgreSQL (its server's own processes and the backends of ``database``; every ``postgres``
    process if None) and by this load generator."""
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
    used["postgres"] = sum(
        cpu
        for pid, (_p, name, cpu) in procs.items()
        if name == "postgres" and _postgres_counted(pid, database)
    )
    times = os.times()
    used["load generator"] = times.user + times.system
    return used
