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
from tests.e2e.pages import sign_in
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DN = get_rules("district-noir")
MOVE = "#board-form button[name=action]"
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


def _table_and_mover(live_server, browser) -> tuple[Table, Page, str]:
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    table.refresh_from_db()
    mover = table.seats.get(is_waiting=True).user.username
    page = browser.new_context().new_page()
    sign_in(page, live_server.url, mover)
    page.goto(f"{live_server.url}/t/{table.pk}/")
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
