"""Two players sign in and play a whole District Noir game with the keyboard alone.

No mouse click anywhere: Tab, Shift+Tab, Enter and Space through page.keyboard. Every
focused action shows a focus ring, and the display settings answer to the keyboard too.
"""

from __future__ import annotations

import random
import time

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from games.models import Table
from games.services.tables import table_create, table_join
from tests.e2e.pages import PASSWORD, every_page_catches_up
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ACTION = "#board-form button[name=action]:not([disabled])"
GAME_TIMEOUT_S = 300
FOCUS_STATE = """() => {
  const el = document.activeElement, style = getComputedStyle(el), box = el.getBoundingClientRect();
  return {
    focusVisible: el.matches(":focus-visible"),
    outline: style.outlineStyle,
    outlineWidth: parseFloat(style.outlineWidth),
    // Sub-pixel layout may leave a fully shown button a fraction of a pixel past the edge.
    inView: box.width > 0 && box.height > 0 && box.top >= -1 && box.bottom <= innerHeight + 1,
  };
}"""


def is_focused(page: Page, selector: str) -> bool:
    return page.evaluate(
        "s => !!document.activeElement && document.activeElement.matches(s)", selector
    )


def press_until_focused(page: Page, selector: str, key: str = "Tab", limit: int = 60) -> bool:
    for _ in range(limit):
        page.keyboard.press(key)
        if is_focused(page, selector):
            return True
    return False


def sign_in_by_keyboard(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    assert press_until_focused(page, "input[name=login]")
    page.keyboard.type(username)
    assert press_until_focused(page, "input[name=password]", limit=3)
    page.keyboard.type(PASSWORD)
    page.keyboard.press("Enter")
    expect(page.locator(".site-header")).to_contain_text(username)


def open_the_board_by_keyboard(page: Page, url: str) -> None:
    """The skip link is the first stop of Tab; Enter puts the focus on the board."""
    page.goto(url)
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    expect(skip).to_be_focused()
    expect(skip).to_be_visible()
    page.keyboard.press("Enter")
    expect(page.locator("#board")).to_be_focused()


def assert_focus_ring_shows(page: Page) -> None:
    state = page.evaluate(FOCUS_STATE)
    for _ in range(20):  # the browser may still be scrolling the focused move into view
        if state["inView"]:
            break
        page.wait_for_timeout(100)
        state = page.evaluate(FOCUS_STATE)
    assert state["focusVisible"], state
    assert state["outline"] == "solid" and state["outlineWidth"] >= 2, state
    assert state["inView"], state


def play_a_move_by_keyboard(page: Page, rng: random.Random) -> None:
    """From the board (where the focus returns after every swap), Tab to a move and press it."""
    expect(page.locator("#board")).to_be_focused()
    version = page.locator("#board-public").get_attribute("data-version") or ""
    assert press_until_focused(page, ACTION), "no move reachable by Tab"
    forward = rng.randrange(page.locator(ACTION).count())  # a later move now and then
    for _ in range(forward):
        assert press_until_focused(page, ACTION, limit=10)
    if forward and rng.random() < 0.5:  # and back one
        assert press_until_focused(page, ACTION, key="Shift+Tab", limit=10)
    assert_focus_ring_shows(page)
    page.keyboard.press(rng.choice(["Enter", "Space"]))
    expect(page.locator("#board-public")).not_to_have_attribute("data-version", version)


def my_turn(page: Page) -> bool:
    return bool(page.locator('#board-private[data-my-turn="1"]').count()) and bool(
        page.locator(ACTION).count()
    )


def test_two_players_finish_a_district_noir_game_with_the_keyboard_alone(
    live_server, browser, fast_polling
):
    anna_user, ben_user = UserFactory(username="anna"), UserFactory(username="ben")
    table = table_create(user=anna_user, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=ben_user)
    base, url = live_server.url, f"{live_server.url}/t/{table.pk}/"

    anna = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    ben = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    for page, name in ((anna, "anna"), (ben, "ben")):
        sign_in_by_keyboard(page, base, name)
        open_the_board_by_keyboard(page, url)

    rng = random.Random(11)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    while not (anna.locator(".result").count() and ben.locator(".result").count()):
        assert time.monotonic() < deadline, "the game did not finish in time"
        moved = False
        for page in (anna, ben):
            if my_turn(page):
                play_a_move_by_keyboard(page, rng)
                moved = True
        if not moved:
            every_page_catches_up([anna, ben], table)

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert table.moves.count() >= 10
    for page in (anna, ben):
        expect(page.locator(".result")).to_contain_text("first place")


def test_the_display_settings_answer_to_the_keyboard_and_are_saved(live_server, browser):
    UserFactory(username="cleo")
    page = browser.new_context(viewport={"width": 1000, "height": 800}).new_page()
    sign_in_by_keyboard(page, live_server.url, "cleo")

    paper = page.evaluate("getComputedStyle(document.querySelector('.panel')).backgroundColor")
    assert paper in {"rgb(251, 248, 241)", "color(srgb 0.984314 0.972549 0.945098)"}, paper
    assert page.evaluate("getComputedStyle(document.querySelector('main')).filter") == "none"

    assert press_until_focused(page, ".display-menu summary")
    assert_focus_ring_shows(page)
    page.keyboard.press("Enter")
    assert press_until_focused(page, "#display-warmth", limit=5)
    assert_focus_ring_shows(page)
    for _ in range(4):
        page.keyboard.press("ArrowRight")  # 50 -> 70, in steps of 5
    warmth = page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--warmth')"
    )
    assert float(warmth) == pytest.approx(0.7)
    expect(page.locator(".display-status")).to_have_text("Saved")
    assert User.objects.get(username="cleo").display_warmth == 70
    warmer = page.evaluate("getComputedStyle(document.querySelector('.panel')).backgroundColor")
    assert warmer != paper


def test_a_move_pressed_the_moment_a_new_board_arrives_goes_through_htmx(live_server, browser):
    """A poll may swap in a new board just as a key is pressed. htmx wires up new content
    when it settles: the settle must be immediate, or the press submits the bare form
    and the whole page reloads (the focus with it)."""
    anna_user, ben_user = UserFactory(username="anna"), UserFactory(username="ben")
    table = table_create(user=anna_user, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=ben_user)
    table.refresh_from_db()  # the version the page will show, not the one at the table's opening
    mover = table.seats.get(is_waiting=True).user.username
    page = browser.new_context().new_page()
    sign_in_by_keyboard(page, live_server.url, mover)
    open_the_board_by_keyboard(page, f"{live_server.url}/t/{table.pk}/")
    page.evaluate("window.__sameDocument = true")

    with page.expect_request(lambda r: r.url.endswith("/act/")) as posted:
        page.evaluate(
            """() => {
              const board = document.getElementById("board");
              // As a poll's answer is swapped: with the configured settle delay.
              const settleDelay = htmx.config.defaultSettleDelay;
              htmx.swap(board, board.outerHTML, {swapStyle: "outerHTML", settleDelay});
              document.querySelector("#board-form button[name=action]").click();
            }"""
        )
    assert posted.value.headers.get("hx-request") == "true", "the move went through htmx"
    expect(page.locator("#board-public")).to_have_attribute("data-version", str(table.version + 1))
    assert page.evaluate("window.__sameDocument === true"), "the page did not reload"
