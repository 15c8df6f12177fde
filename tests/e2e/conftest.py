"""A real headless Chromium (Debian's, via Playwright's executable_path) against a live server."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from django.db import connection

from tests.support.processes import database_url, start_uvicorn, stop

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


@pytest.fixture(autouse=True)
def _pages_closed_after_each_test(request) -> Iterator[None]:
    """The pages a test opened close with it: left open, they went on polling and opening
    their sockets (against servers already stopped) for the rest of the module's tests, in
    the browser those tests share."""
    yield
    if "browser" in request.fixturenames:
        for context in request.getfixturevalue("browser").contexts:
            context.close()


@pytest.fixture
def fast_polling(settings) -> None:
    settings.TABLE_POLL_MS = 250


def start_asgi_server(overrides: dict[str, str] | None = None) -> tuple[str, subprocess.Popen]:
    """uvicorn (the production ASGI server) on the test database, in a process of its own:
    pages get their websocket. Needs PostgreSQL (a database both processes share)."""
    if connection.vendor != "postgresql":
        pytest.skip("the ASGI server runs in another process and needs a shared database")
    env = dict(os.environ)  # keeps PYTEST_VERSION: the server uses the test settings
    env.update(
        DATABASE_URL=database_url(connection.settings_dict),
        TASKS_MODE="thread",
        TABLE_POLL_MS="600000",  # polling off: only the websocket can update the page
    )
    # With Redis, the server and this test process share the channel layer: a change the test
    # makes through a service reaches the server's sockets. Without, the server's own layer.
    env.update(overrides or {})
    port, process = start_uvicorn(env, "--timeout-graceful-shutdown", "3", seconds=30)
    return f"http://127.0.0.1:{port}", process


def stop_asgi_server(process: subprocess.Popen) -> None:
    """Stops the server; one still waiting on an open socket after its grace is killed (what
    the test checked is done by then)."""
    stop(process)


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
