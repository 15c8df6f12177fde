"""In a real browser against uvicorn (the production ASGI server): a move shows up on the other
player's open page through the websocket alone, and its title says "Your turn"."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection
from playwright.sync_api import expect

from games import services
from tests.e2e.pages import sign_in
from tests.factories import UserFactory

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the ASGI server runs in another process and needs a shared database",
    ),
]

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def asgi_server() -> Iterator[str]:
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    port = _free_port()
    env = dict(os.environ)  # keeps PYTEST_VERSION: the server uses the test settings
    env.update(
        DATABASE_URL=url,
        TASKS_MODE="thread",
        TABLE_POLL_MS="600000",  # polling off: only the websocket can update the page
    )
    env.pop("REDIS_URL", None)  # one process serves HTTP and sockets: the in-memory layer does
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
            break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        pytest.fail("uvicorn did not start")
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    process.wait(10)


def _log_in(browser, base: str, username: str):
    page = browser.new_context().new_page()
    sign_in(page, base, username)
    return page


def test_a_move_reaches_the_other_open_page_over_the_websocket(asgi_server, browser):
    alice = UserFactory(username="alice")
    bob = UserFactory(username="bob")
    table = services.table_create(
        user=alice, game="district-noir", num_seats=2, seconds_per_move=86400
    )
    services.table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    pages = {name: _log_in(browser, asgi_server, name) for name in ("alice", "bob")}
    for page in pages.values():
        page.goto(f"{asgi_server}/t/{table.pk}/")
        page.wait_for_function("window.tableLive === true")

    mover = table.seats.get(is_waiting=True).user.username
    waiter = "bob" if mover == "alice" else "alice"
    assert pages[mover].title().startswith("● Your turn")
    assert not pages[waiter].title().startswith("●")
    version = pages[waiter].locator("#board").get_attribute("data-version")

    socket_url = pages[mover].locator(".table-page").get_attribute("ws-connect")
    with pages[mover].expect_request(lambda r: r.url.endswith("/act/")) as posted:
        pages[mover].locator("#board-form button[name=action]").first.click()

    expect(pages[waiter].locator("#board")).not_to_have_attribute("data-version", version)
    expect(pages[waiter].locator("#turn-badge")).to_be_visible()
    pages[waiter].wait_for_function("document.title.startsWith('●')")
    assert table.moves.count() == 1
    # The moving page named itself: its post carries the id its socket connected with.
    assert socket_url.endswith(f"?page={posted.value.headers['x-page']}")
    expect(pages[mover].locator("#board")).not_to_have_attribute("data-version", version)
