"""A person plays a whole Gnav match against three bots, in a real browser."""

from __future__ import annotations

import random
import time

import pytest
from django.db import connection
from playwright.sync_api import expect

from games.boards import LOG_TAIL
from games.models import Move, Table
from games.rules import get_rules
from tests.e2e.pages import sign_in, wait_for_a_move_or_the_end
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

MATCH_TIMEOUT_S = 240
GNAV = get_rules("gnav")


@pytest.fixture
def bots_in_the_background(settings) -> None:
    # On PostgreSQL bots move on a background thread, as on the embedded default; the
    # in-memory SQLite test database cannot be shared with one, so there they move inline.
    settings.TASKS_MODE = "thread" if connection.vendor == "postgresql" else "inline"
    settings.BOT_MOVE_DELAY_SECONDS = 0.05


def test_a_human_plays_a_match_against_three_bots_to_its_end(
    live_server, browser, fast_polling, bots_in_the_background
):
    UserFactory(username="sigrid")
    page = browser.new_context(viewport={"width": 1000, "height": 900}).new_page()
    sign_in(page, live_server.url, "sigrid")
    page.locator(".game-card", has_text="Gnav").get_by_role("button").click()
    expect(page.locator("#board")).to_be_visible()

    # The player's own seat is at the bottom of the table, its card face up just below it.
    me = page.locator(".table-page").get_attribute("data-seat")
    # All four read at once, in the page: a bot's move may swap the board between two reads.
    # Waited for: on a loaded machine the game's stylesheet may not be applied yet at the
    # first read, and the seats then stand in their document order (the last one lowest).
    expect(page.locator(".gn-table .gn-seat[data-seat]")).to_have_count(4)
    page.wait_for_function(
        """(me) => {
             const seats = [...document.querySelectorAll('.gn-table .gn-seat[data-seat]')];
             if (seats.length !== 4) return false;
             const lowest = seats.reduce((a, b) =>
               b.getBoundingClientRect().top > a.getBoundingClientRect().top ? b : a);
             return lowest.dataset.seat === me;
           }""",
        arg=me,
    )
    expect(page.locator(f".gn-seat[data-seat='{me}']")).to_contain_text("(you)")
    expect(page.locator(".gn-mine .gn-face")).to_be_visible()
    # Read again until both are laid out: a bot's move may swap the board in between.
    assert _top(page, ".gn-mine") > _top(page, ".gn-table")

    rng = random.Random(11)
    deadline = time.monotonic() + MATCH_TIMEOUT_S
    decisions = 0
    while not page.locator(".result").count():
        assert time.monotonic() < deadline, "the match did not finish in time"
        buttons = page.locator("#board-form button[name=action]:not([disabled])")
        if buttons.count():
            version = page.locator("#board-public").get_attribute("data-version")
            expect(page.locator(".gn-actions")).to_be_visible()
            buttons.nth(rng.randrange(buttons.count())).click()
            expect(page.locator("#board-public")).not_to_have_attribute(
                "data-version", version or ""
            )
            decisions += 1
        else:
            wait_for_a_move_or_the_end(page)

    table = Table.objects.get()
    assert table.status == Table.Status.FINISHED
    assert decisions > 0
    assert Move.objects.filter(table=table, by=Move.By.BOT).count() > 0
    expect(page.locator(".result")).to_be_visible()
    # Nothing looks playable any more: no move, no seat to play, no card of one's own.
    expect(page.locator("#board button[name=action]")).to_have_count(0)
    expect(page.locator(".gn-turn")).to_have_count(0)
    expect(page.locator(".gn-mine")).to_have_count(0)
    expect(page.locator("#board-private")).to_have_attribute("data-my-turn", "")
    # The board shows the latest entries of the log: the player's own where they name the
    # player's own cards (then in place of the spectators' one); its link opens the whole log.
    seat = table.seats.get(user__username="sigrid").position
    state = GNAV.from_json(table.state)
    log = GNAV.view(state, seat)
    assert len(log["log"]) > LOG_TAIL
    own = log["log"][-LOG_TAIL:] != GNAV.view(state, None)["log"][-LOG_TAIL:]
    expect(page.locator(".log:visible")).to_have_count(1)
    expect(page.locator(".log-private" if own else ".log-public")).to_be_visible()
    expect(page.locator(".log:visible li")).to_have_count(LOG_TAIL + 1)
    page.locator(".log:visible .log-earlier a").click()
    expect(page.locator(".log-page .log li")).to_have_count(len(log["log"]))
    page.get_by_role("link", name="Back to the table").click()
    expect(page.locator(".result")).to_be_visible()


def _top(page, selector: str, timeout_ms: float = 10000) -> float:
    """The element's top edge, once it is in the page (a board swapped in by a push is
    briefly without it)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while (box := page.locator(selector).bounding_box()) is None:
        assert time.monotonic() < deadline, f"{selector} never laid out"
        page.wait_for_timeout(50)
    return box["y"]
