"""Point City played to the end in a real browser, by clicking (sometimes by keyboard): two
players, then solo."""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from games.models import Table
from games.services.tables import table_create, table_join
from tests.e2e.pages import every_page_catches_up, sign_in, wait_for_a_move_or_the_end
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GAME_TIMEOUT_S = 150  # a 2-player game takes under a minute on a quiet machine


def off_the_event_loop(service, /, **kwargs):
    """Calls a service in another thread: its on-commit broadcast uses ``async_to_sync``,
    which refuses to run in this thread, where Playwright's event loop lives."""

    def call():
        try:
            return service(**kwargs)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(call).result()


@pytest.fixture
def open_page(browser):
    """Opens a page in a fresh browser context of the given size; all closed afterwards."""
    contexts = []

    def open_one(width: int, height: int) -> Page:
        context = browser.new_context(viewport={"width": width, "height": height})
        contexts.append(context)
        return context.new_page()

    yield open_one
    for context in contexts:
        context.close()


def press_or_click(button: Locator, rng: random.Random) -> None:
    """Mostly a click; sometimes the keyboard, as a keyboard player would (focus, Enter)."""
    if rng.random() < 0.3:
        button.focus()
        button.press(rng.choice(["Enter", " "]))
    else:
        button.click()


def choose_a_move(page: Page, rng: random.Random) -> Locator:
    """The button that plays this page's next move, picked as a player would pick it.

    Mostly the two-click market pick (a card, then a highlighted neighbour, then the payment
    offered first); sometimes the draw pile; a civic token or a flip when that is what is asked.
    The market to pick in is the seat's own copy (the private part), which hides the public one.
    """
    tokens = page.locator("button.pc-choose")
    cells = page.locator(".pc-market-pick button.pc-cell:not([disabled])")
    draw = page.locator("button.pc-draw")
    if tokens.count():
        expect(page.locator(".pc-supply:not(.pc-supply-pick)")).to_be_hidden()
        return tokens.nth(rng.randrange(tokens.count()))
    if page.locator("button.pc-pass").count():
        return page.locator("button.pc-pass")
    if not cells.count() or (draw.count() and rng.random() < 0.2):
        return draw
    expect(page.locator(".pc-market-panel:not(.pc-market-pick)")).to_be_hidden()
    expect(page.locator(".pc-offers li:visible")).to_have_count(0)  # until a pair is picked
    press_or_click(cells.nth(rng.randrange(cells.count())), rng)
    expect(page.locator(".pc-market-pick button.pc-cell[aria-pressed=true]")).to_have_count(1)
    near = page.locator("button.pc-cell.pc-near")
    if not near.count():  # a card that can only be flipped
        expect(page.locator(".pc-hint")).to_contain_text("you may flip it")
        return page.locator(".pc-flips li.pc-shown button.pc-flip")
    expect(page.locator(".pc-hint")).to_contain_text("beside it")
    press_or_click(near.nth(rng.randrange(near.count())), rng)
    expect(page.locator(".pc-hint")).to_contain_text("choose how to pay")
    offers = page.locator(".pc-offers li.pc-shown button.pc-offer")
    expect(offers.first).to_be_visible()
    return offers.first


def play_a_move(page: Page, rng: random.Random) -> bool:
    """If it is this page's turn, plays one move by clicking; True if it did.

    A post the server failed to answer (SQLite's table locks, when the test database is
    SQLite and the pages poll meanwhile) leaves the board as it was: click again, as a
    player would.
    """
    if not page.locator('#board-private[data-my-turn="1"]').count():
        return False
    version = page.locator("#board-public").get_attribute("data-version") or ""
    button = choose_a_move(page, rng)
    moved = f'#board-public:not([data-version="{version}"])'
    for _ in range(3):
        press_or_click(button, rng)
        try:
            page.wait_for_selector(moved, state="attached", timeout=5000)
            return True
        except PlaywrightTimeout:
            continue
    page.wait_for_selector(moved, state="attached")
    return True


def nothing_is_left_to_play(page: Page) -> None:
    """After the end: no move, no mark for a next move (issue #16, point 14), no inline script;
    only what comes next (a rematch)."""
    expect(page.locator("#board .next-steps button")).to_have_text("Rematch")
    for selector in [
        "#board button:not(.next-steps button)",
        "#board .pc-automa-next",
        "#board .pc-legend",
        "#board .pc-moving",
        "#board .pc-near",
        "#board script",
    ]:
        expect(page.locator(selector)).to_have_count(0)


def test_two_players_finish_a_game_by_clicking(live_server, open_page, fast_polling):
    base = live_server.url
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    table = off_the_event_loop(
        table_create, user=anna, game="point-city", num_seats=2, seconds_per_move=86400
    )
    off_the_event_loop(table_join, table_id=table.pk, user=ben)
    pages = []
    for user, size in [(anna, (1100, 900)), (ben, (390, 844))]:
        page = open_page(*size)
        sign_in(page, base, user.username)
        page.goto(f"{base}/t/{table.pk}/")
        expect(page.locator(".pc-market").locator("visible=true")).to_have_count(1)
        pages.append(page)

    rng = random.Random(7)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    while not all(page.locator(".result").count() for page in pages):
        assert time.monotonic() < deadline, "the game did not finish in time"
        if not any([play_a_move(page, rng) for page in pages]):
            every_page_catches_up(pages, table)

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert table.moves.count() >= 34  # 17 turns each, and more for flips and tokens
    for page in pages:
        expect(page.locator(".result-details")).to_contain_text("Scores in detail")
        expect(page.locator(".result")).to_contain_text("first place")
        nothing_is_left_to_play(page)


def test_a_solo_game_against_the_automa_is_finished_by_clicking(
    live_server, open_page, fast_polling
):
    base = live_server.url
    cleo = UserFactory(username="cleo")
    table = off_the_event_loop(
        table_create,
        user=cleo,
        game="point-city",
        num_seats=1,
        seconds_per_move=86400,
        options={"automa_difficulty": 2},
    )
    page = open_page(390, 844)
    sign_in(page, base, "cleo")
    page.goto(f"{base}/t/{table.pk}/")
    expect(page.locator("section.pc-automa")).to_contain_text("The Automa")
    expect(page.locator(".pc-market-pick .pc-automa-next")).to_have_count(2)  # its next two

    rng = random.Random(11)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    while not page.locator(".result").count():
        assert time.monotonic() < deadline, "the game did not finish in time"
        if not play_a_move(page, rng):
            wait_for_a_move_or_the_end(page)

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    details = table.outcome["details"]
    verdict = page.locator(".pc-solo-verdict")
    expect(verdict).to_contain_text("Automa difficulty: 2 stars")
    expect(verdict).to_contain_text(str(details["automa"]["total"]))
    stars = "you earn 2 stars" if details["won"] else "no stars this time"
    expect(verdict).to_contain_text(stars)
    assert page.locator(".pc-star-on").count() == details["stars"]
    nothing_is_left_to_play(page)
