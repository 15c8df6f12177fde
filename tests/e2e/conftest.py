"""A real headless Chromium (Debian's, via Playwright's executable_path) against a live server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

# Playwright's sync API runs an event loop in this thread; the ORM calls the
# tests make between browser steps are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One Chromium per test module: Playwright's sync API keeps an event loop running in this
    thread while it lives, which would break async_to_sync in the tests that follow."""
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"Chromium not found at {CHROMIUM}")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def fast_polling(settings) -> None:
    settings.TABLE_POLL_MS = 250


ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_asgi_server(overrides: dict[str, str] | None = None) -> tuple[str, subprocess.Popen]:
    """uvicorn (the production ASGI server) on the test database, in a process of its own:
    pages get their websocket. Needs PostgreSQL (a database both processes share)."""
    if connection.vendor != "postgresql":
        pytest.skip("the ASGI server runs in another process and needs a shared database")
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    port = _free_port()
    env = dict(os.environ)  # keeps PYTEST_VERSION: the server uses the test settings
    env.update(
        DATABASE_URL=url,
        TASKS_MODE="thread",
        TABLE_POLL_MS="600000",  # polling off: only the websocket can update the page
    )
    # With Redis, the server and this test process share the channel layer: a change the test
    # makes through a service reaches the server's sockets. Without, the server's own layer.
    env.update(overrides or {})
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--ws",
            "config.websocket:WideWindowProtocol",
            "--timeout-graceful-shutdown",
            "3",
            "config.asgi:application",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return f"http://127.0.0.1:{port}", process
        except OSError:
            time.sleep(0.2)
    process.kill()
    pytest.fail("uvicorn did not start")


def stop_asgi_server(process: subprocess.Popen) -> None:
    """Stops the server; one still waiting on an open socket after its grace is killed (what
    the test checked is done by then)."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@pytest.fixture
def asgi_server(request) -> Iterator[str]:
    """A server of the test's own; marked ``asgi_env({...})``, with those environment
    variables."""
    marker = request.node.get_closest_marker("asgi_env")
    url, process = start_asgi_server(marker.args[0] if marker else None)
    yield url
    stop_asgi_server(process)


@pytest.fixture(scope="module")
def instant_bots_server(django_db_setup, django_db_blocker) -> Iterator[str]:
    """One uvicorn for a module's tests, its bots moving without a pause."""
    with django_db_blocker.unblock():
        url, process = start_asgi_server({"BOT_MOVE_DELAY_SECONDS": "0"})
    yield url
    stop_asgi_server(process)
