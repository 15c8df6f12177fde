"""In a real browser against uvicorn (the production ASGI server): moves travel over the open
websocket, every change reaches every open page through it alone (polling is off here), and a
page whose socket connects late, or reconnects, catches up at once."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from playwright.sync_api import expect

from games.rules import get_rules
from games.services.tables import table_create, table_join
from tests.e2e.pages import signed_in_page, wait_until
from tests.e2e.tables import a_table, elsewhere, play_one
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DN = get_rules("district-noir")
SOCKET = re.compile(r".*/ws/t/\d+/.*")


def test_a_move_goes_over_the_socket_and_reaches_the_other_open_page(asgi_server, browser):
    table = a_table("district-noir", [UserFactory(username="alice"), UserFactory(username="bob")])
    pages = {name: signed_in_page(browser, asgi_server, name) for name in ("alice", "bob")}
    for page in pages.values():
        page.goto(f"{asgi_server}/t/{table.pk}/")
        wait_until(page, "window.tableLive === true")

    mover = table.seats.get(is_waiting=True).user.username
    waiter = "bob" if mover == "alice" else "alice"
    assert pages[mover].title().startswith("● Your turn")
    assert not pages[waiter].title().startswith("●")
    posts: list[str] = []
    pages[mover].on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    version = pages[waiter].locator("#board-public").get_attribute("data-version")

    pages[mover].locator("#board-form button[name=action]").first.click()

    expect(pages[waiter].locator("#board-public")).not_to_have_attribute("data-version", version)
    expect(pages[waiter].locator("#turn-badge")).to_be_visible()
    wait_until(pages[waiter], "document.title.startsWith('●')")
    expect(pages[mover].locator("#board-public")).not_to_have_attribute("data-version", version)
    expect(pages[mover].locator("#turn-badge")).to_be_hidden()
    assert table.moves.count() == 1
    assert posts == [], "the move went over the open socket, not an HTTP post"


def test_a_page_whose_socket_connects_after_a_move_shows_it_within_a_second(asgi_server, browser):
    """The move is committed after the page was rendered and before its socket connected: the
    socket's hello brings it (polling is off, the safety poll would take 30 s)."""
    table = a_table("district-noir", [UserFactory(username="alice"), UserFactory(username="bob")])
    page = signed_in_page(browser, asgi_server, "alice")
    held, from_page, server = [], [], []

    def hold(route) -> None:  # the page's socket opens, but goes nowhere yet
        held.append(route)
        route.on_message(lambda m: server[0].send(m) if server else from_page.append(m))

    page.route_web_socket(SOCKET, hold)
    page.goto(f"{asgi_server}/t/{table.pk}/")
    rendered = page.locator("#board-public").get_attribute("data-version")
    wait_until(page, "window.tableLive === true")
    new_version = play_one(table)

    server.append(held[0].connect_to_server())
    for message in from_page:  # the page's hello, held until now
        server[0].send(message)
    assert rendered == str(new_version - 1)
    expect(page.locator("#board-public")).to_have_attribute(
        "data-version", str(new_version), timeout=1000
    )


def test_a_page_whose_socket_was_dropped_while_a_move_happened_catches_up_on_reconnect(
    asgi_server, browser
):
    table = a_table("district-noir", [UserFactory(username="alice"), UserFactory(username="bob")])
    page = signed_in_page(browser, asgi_server, "alice")
    routes = []

    def through(route) -> None:
        routes.append(route)
        route.connect_to_server()

    page.route_web_socket(SOCKET, through)
    page.goto(f"{asgi_server}/t/{table.pk}/")
    wait_until(page, "window.tableLive === true")
    routes[0].close(code=1012, reason="the server restarts")
    wait_until(page, "window.tableLive === false")
    new_version = play_one(table)  # while the page has no socket
    wait_until(page, "window.tableLive === true", timeout_ms=10000)  # it reconnected
    expect(page.locator("#board-public")).to_have_attribute(
        "data-version", str(new_version), timeout=1000
    )


@pytest.mark.skipif(not settings.REDIS_URL, reason="the test's own moves reach the server by Redis")
def test_the_fair_shuffle_panel_follows_the_table_from_waiting_to_the_end(asgi_server, browser):
    """Opened while the table waits for players: the fingerprint appears when it starts, the
    seed (and the replay among what comes next) when it ends, without a reload."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    page = signed_in_page(browser, asgi_server, "alice")
    page.goto(f"{asgi_server}/t/{table.pk}/")
    wait_until(page, "window.tableLive === true")
    expect(page.locator("#fairness")).to_have_count(0)

    elsewhere(table_join, table_id=table.pk, user=bob)
    table.refresh_from_db()
    expect(page.locator("#fairness .seed-hash")).to_be_visible()
    expect(page.locator("#fairness .seed")).to_have_count(0)

    while table.is_running:
        play_one(table)
    expect(page.locator("#fairness .seed")).to_have_text(str(table.seed))
    expect(page.locator(f'.next-steps a[href="/t/{table.pk}/replay/"]')).to_be_visible()
    expect(page.locator(".result")).to_be_visible()


def test_the_tables_socket_is_compressed(asgi_server):
    """permessage-deflate (RFC 7692) is negotiated by the production server, as the socket's
    deflate is tested to keep a push within 5 KB on the wire (tests/games/boards/
    test_wire_size.py) and an idle spectator's socket without a compressor
    (tests/games/live/test_socket_deflate.py)."""
    from websockets.sync.client import connect

    table = a_table("district-noir", [UserFactory(username="alice"), UserFactory(username="bob")])
    url = asgi_server.replace("http://", "ws://") + f"/ws/t/{table.pk}/"
    with connect(url, origin=asgi_server) as socket:
        extensions = socket.response.headers.get("Sec-WebSocket-Extensions", "")
        socket.send(json.dumps({"hello": -1, "digest": ""}))
        board = socket.recv(timeout=10)
    assert "permessage-deflate" in extensions
    # The site's protocol (config/websocket.py): a 32 KB window the browser keeps for what the
    # server sends, uvicorn's 4 KB for what the browser sends, which is inflated on its own.
    assert "server_no_context_takeover" not in extensions
    assert "client_no_context_takeover" in extensions
    assert "server_max_window_bits=15" in extensions
    assert "client_max_window_bits=12" in extensions
    assert 'id="board-public"' in board
