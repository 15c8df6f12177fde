"""A refused move says why inside the page, which stays whole and live: in development (DEBUG on,
django-htmx's debug script loaded) as in production, over HTTP (a page without a socket)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from games.models import Table
from games.rules import get_rules
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from tests.e2e.axe import EVERY_RULE, violations
from tests.e2e.pages import sign_in, wait_until
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DN = get_rules("district-noir")
MOVE = "#board-form button[name=action]"
PHONE = {"width": 390, "height": 844}
ILLEGAL = json.dumps({"type": "play", "card": 999})
MAKE_ILLEGAL = "(button, value) => { button.value = value; }"
# Where the refusal shows, and where the moves are docked, as the player sees the page.
PLACES = """() => {
  const alert = document.querySelector("#board-message [role=alert]");
  const dock = document.querySelector("#board .board-dock");
  if (!alert || !dock) return null;
  const said = alert.getBoundingClientRect(), moves = dock.getBoundingClientRect();
  return {top: said.top, bottom: said.bottom, movesTop: moves.top, movesBottom: moves.bottom,
          height: innerHeight, scrolled: scrollY};
}"""
# As a socket's push does when the page's private part did not change: the new public part
# alone, swapped in by id (the move form, in the private part, stays).
PUSH_PUBLIC_PART = """async url => {
  const html = await (await fetch(url, {headers: {"HX-Request": "true"}})).text();
  const board = new DOMParser().parseFromString(html, "text/html");
  htmx.swap("#board-public", board.getElementById("board-public").outerHTML,
            {swapStyle: "outerHTML"});
}"""


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def debug(request, settings) -> bool:
    settings.DEBUG = request.param
    return request.param


def _table_and_mover(live_server, browser, **context) -> tuple[Table, Page, str]:
    base = live_server if isinstance(live_server, str) else live_server.url
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    mover = table.seats.get(is_waiting=True).user.username
    page = browser.new_context(**context).new_page()
    sign_in(page, base, mover)
    page.goto(f"{base}/t/{table.pk}/")
    return table, page, mover


def _still_a_whole_live_page(page: Page) -> None:
    expect(page.locator(".site-header")).to_be_visible()
    expect(page.locator("#board-public")).to_be_visible()
    assert page.evaluate("typeof htmx") == "object"
    color = page.evaluate("getComputedStyle(document.querySelector('.panel')).backgroundColor")
    assert color != "rgba(0, 0, 0, 0)", "the site's stylesheet still applies"


def test_an_illegal_move_is_refused_inside_the_board(live_server, browser, debug):
    table, page, _mover = _table_and_mover(live_server, browser)
    debug_script = page.locator('script[src*="django-htmx"]')
    expect(debug_script).to_have_count(1 if debug else 0)
    illegal = json.dumps({"type": "play", "card": 999})
    page.locator(MOVE).first.evaluate("(button, value) => { button.value = value; }", illegal)
    page.locator(MOVE).first.click()
    expect(page.locator("#board-message")).to_contain_text("not")
    _still_a_whole_live_page(page)
    assert table.moves.count() == 0


def test_a_move_by_a_player_signed_out_meanwhile_is_refused_inside_the_board(
    live_server, browser, debug
):
    table, page, _mover = _table_and_mover(live_server, browser)
    page.context.clear_cookies(name="sessionid")  # signed out in another tab
    page.locator(MOVE).first.click()
    expect(page.locator("#board-message")).to_have_text("Sign in to play.")
    _still_a_whole_live_page(page)
    assert table.moves.count() == 0


def test_a_move_whose_csrf_cookie_is_gone_is_refused_inside_the_board(live_server, browser, debug):
    """The browser lost its cookies (cleared, or expired): a readable reason, not Django's
    CSRF failure page in place of the board."""
    table, page, _mover = _table_and_mover(live_server, browser)
    page.context.clear_cookies()
    page.locator(MOVE).first.click()
    expect(page.locator("#board-message")).to_contain_text("reload the page")
    _still_a_whole_live_page(page)
    assert table.moves.count() == 0


def test_a_move_that_loses_a_race_to_another_tab_says_why(live_server, browser, settings):
    """Two tabs of one player: the other tab's move is played first, and this tab's board is
    replaced by the live update before its own move's answer (a 409) arrives; the answer still
    shows, in #board-message, which the update does not touch."""
    settings.TABLE_POLL_MS = 600000
    table, first, _mover = _table_and_mover(live_server, browser)
    second = first.context.new_page()
    second.goto(f"{live_server.url}/t/{table.pk}/")
    held = []
    second.route("**/act/", lambda route: held.append(route))
    with second.expect_request(lambda request: request.url.endswith("/act/")) as posted:
        second.locator(MOVE).first.click()  # its move leaves, and is held on the way
    assert posted.value.headers.get("hx-request") == "true"

    first.locator(MOVE).first.click()  # the first tab's move is played
    expect(first.locator("#board-public")).to_have_attribute("data-version", str(table.version + 1))
    second.evaluate(  # the live update reaches the second tab first
        "url => htmx.ajax('GET', url, {target: '#board', swap: 'outerHTML'})",
        f"/t/{table.pk}/",
    )
    expect(second.locator("#board-public")).to_have_attribute(
        "data-version", str(table.version + 1)
    )
    held[0].continue_()  # then its own move's answer: 409
    expect(second.locator("#board-message")).to_have_text(
        "The game moved on before your move arrived. Here is the board now."
    )
    assert table.moves.count() == 1


def test_a_late_answer_never_puts_an_older_board_over_a_newer_one(live_server, browser, settings):
    """A move's answer is held on the way while the other player moves and a push brings the
    page that later board: when the answer arrives, the page keeps the later board."""
    settings.TABLE_POLL_MS = 600000
    table, page, mover = _table_and_mover(live_server, browser)
    held = []
    page.route("**/act/", lambda route: held.append(route))
    with page.expect_request(lambda request: request.url.endswith("/act/")):
        page.locator(MOVE).first.click()
    for _ in range(100):  # Playwright hands the route over on its next round trip
        if held:
            break
        page.evaluate("0")
    answer = held[0].fetch()  # the move is played; its answer (one version on) is held
    table.refresh_from_db()
    state = DN.from_json(table.state)
    seat = DN.active_seats(state)[0]
    other = table.seats.get(position=seat).user
    assert other.username != mover
    move_play(  # the other player's move
        table_id=table.pk,
        user=other,
        action=DN.legal_actions(state, seat)[0],
        version=table.version,
    )
    page.evaluate(PUSH_PUBLIC_PART, f"/t/{table.pk}/")  # its live update reaches the page
    newer = str(table.version + 1)
    expect(page.locator("#board-public")).to_have_attribute("data-version", newer)
    with page.expect_response(lambda response: response.url.endswith("/act/")):
        held[0].fulfill(response=answer)  # then the move's own answer, one version older
    page.evaluate("0")
    expect(page.locator("#board")).not_to_have_class(re.compile(r"htmx-request"))
    expect(page.locator("#board-public")).to_have_attribute("data-version", newer)


def _told_beside_the_moves(page: Page) -> None:
    """The reason is on the screen, right above the docked moves, and the page did not scroll."""
    places = page.evaluate(PLACES)
    assert places is not None, "a role=alert message and docked moves"
    assert places["scrolled"] == 0, places
    assert places["top"] >= 0 and places["bottom"] <= places["height"], places
    assert places["movesTop"] - 40 <= places["bottom"] <= places["movesTop"] + 1, places
    assert places["movesBottom"] <= places["height"] + 1, places


def test_a_refusal_is_told_beside_the_moves_until_it_is_read(live_server, browser):
    """On a phone, where the hand is docked at the bottom of the screen: the reason shows just
    above it, and a screen reader hears it (role=alert); a new board (a poll, a push) leaves it;
    it goes when dismissed, or with the next move."""
    table, page, _mover = _table_and_mover(live_server, browser, viewport=PHONE)
    page.locator(MOVE).first.evaluate(MAKE_ILLEGAL, ILLEGAL)
    page.locator(MOVE).first.click()
    alert = page.locator("#board-message [role=alert]")
    expect(alert).to_contain_text("not")
    _told_beside_the_moves(page)
    assert not list(violations(page, EVERY_RULE)), "the message passes axe-core"

    page.evaluate("document.getElementById('board-form').dataset.old = '1'")
    page.evaluate(  # a whole new board, as a poll brings it
        "url => htmx.ajax('GET', url, {target: '#board', swap: 'outerHTML'})", f"/t/{table.pk}/"
    )
    expect(page.locator("#board-form[data-old]")).to_have_count(0)
    expect(alert).to_be_visible()
    _told_beside_the_moves(page)

    page.get_by_role("button", name="Dismiss this message").click()
    expect(page.locator("#board-message")).to_be_empty()

    page.locator(MOVE).first.evaluate(MAKE_ILLEGAL, ILLEGAL)
    page.locator(MOVE).first.click()
    expect(alert).to_be_visible()
    page.locator(MOVE).first.click()  # a legal move (the answer brought a fresh board)
    expect(page.locator("#board-public")).to_have_attribute("data-version", str(table.version + 1))
    expect(page.locator("#board-message")).to_be_empty()
    assert table.moves.count() == 1


def test_a_refusal_over_the_socket_is_told_beside_the_moves(asgi_server, browser):
    table, page, _mover = _table_and_mover(asgi_server, browser, viewport=PHONE)
    wait_until(page, "window.tableLive === true")
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if r.url.endswith("/act/") else None)
    page.locator(MOVE).first.evaluate(MAKE_ILLEGAL, ILLEGAL)
    page.locator(MOVE).first.click()
    expect(page.locator("#board-message [role=alert]")).to_contain_text("not")
    assert posted == [], "the move went over the socket"
    _told_beside_the_moves(page)
    expect(page.get_by_role("button", name="Dismiss this message")).to_be_visible()
    assert table.moves.count() == 0
