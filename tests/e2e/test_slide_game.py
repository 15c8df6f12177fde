"""Three people open a table of Slide in their browsers, join it and play it to the end by
clicking: the first two rounds and the last two (both kinds of turn, a grid filling up, the
result). The twelve rounds in between, the same clicks again, are played through the service
while the pages are open, which follow by polling."""

from __future__ import annotations

import random
import time

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from games.models import Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services.moves import move_play
from tests.conftest import user_at
from tests.e2e.pages import every_page_catches_up, sign_in
from tests.e2e.tables import elsewhere
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SLIDE = get_rules("slide")
GAME_TIMEOUT_S = 300  # generous: on a busy machine a move can take seconds
CLICK_MS = 10_000
ROUND = 2 * 3  # moves: each of the three players picks a card, then slides one in
CLICKED_ROUNDS = 2  # at the start, and as many at the end
BOARD_STATE = """() => {
  const pub = document.getElementById("board-public");
  const priv = document.getElementById("board-private");
  const status = document.querySelector(".sl-status");
  if (!pub || !priv || !status) return null;
  const takes = priv.querySelectorAll(".sl-take").length;
  return {
    waiting: priv.dataset.myTurn, phase: status.dataset.phase, version: pub.dataset.version,
    cells: priv.querySelectorAll("button.sl-pickable").length, takes: takes,
    edges: takes ? Math.round(priv.querySelectorAll(".sl-ring > .sl-arrow").length / takes) : 0,
  };
}"""


def take_a_turn(page: Page, rng: random.Random) -> bool:
    """Plays one move if this page's seat is waited for; True if it tried.

    A poll may swap the board in the middle of this; then the click fails or
    is refused, and the next call looks at the fresh board.
    """
    seen = page.evaluate(BOARD_STATE)
    if not seen or seen["waiting"] != "1":
        return False
    try:
        if seen["phase"] == "pick":
            page.locator("button.sl-pickable").nth(
                seen["cells"] and rng.randrange(seen["cells"])
            ).click(timeout=CLICK_MS)
        else:
            # Choose the centre card, then one of its arrows: only the chosen card's show.
            take = rng.randrange(seen["takes"])
            if take:  # the first card is chosen already
                page.locator(".sl-take").nth(take).click(timeout=CLICK_MS)
            arrows = page.locator(".sl-ring > .sl-arrow:visible")
            arrows.nth(rng.randrange(int(seen["edges"]))).click(timeout=CLICK_MS)
        expect(page.locator("#board-public")).not_to_have_attribute(
            "data-version", seen["version"], timeout=CLICK_MS
        )
    except (AssertionError, PlaywrightError):
        page.reload()
    return True


def play_through_the_service(table: Table, moves: int, rng: random.Random) -> None:
    """``moves`` moves as the seated players, each by a seat the game waits for (one pick a
    round each, never a pick changed, as the pages play)."""
    for _ in range(moves):
        table.refresh_from_db()
        state = SLIDE.from_json(table.state)
        seat = rng.choice(SLIDE.waiting_seats(state))
        action = rng.choice(SLIDE.legal_actions(state, seat))
        move_play(
            table_id=table.pk, user=user_at(table, seat), action=action, version=table.version
        )


def test_three_players_open_join_and_finish_a_game_by_clicking(live_server, browser, fast_polling):
    base = live_server.url
    names = ["anna", "ben", "cleo"]
    for name in names:
        UserFactory(username=name)
    sizes = [(1100, 900), (390, 844), (800, 900)]
    pages = []
    for name, (width, height) in zip(names, sizes, strict=True):
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        sign_in(page, base, name)
        pages.append(page)
    anna, ben, cleo = pages

    anna.goto(f"{base}/")
    card = anna.locator("#game-slide")
    card.get_by_text("Open a table for friends").click()
    card.locator("select[name='slide-num_seats']").select_option("3")
    card.get_by_role("button", name="Open table").click()
    expect(anna.locator(".table-status")).to_contain_text("Waiting for players")
    for page in (ben, cleo):
        page.goto(f"{base}/")
        page.locator(".table-row", has_text="anna").get_by_role("button", name="Join").click()
    for seat, page in enumerate(pages):
        expect(page.locator(".sl-status")).to_be_visible()  # anna's page noticed by polling
        expect(page.locator(".sl-chosen")).to_contain_text("of 3 have chosen")
        # Its own grid, to pick from, and the two others' as everyone sees them: its own public
        # copy is hidden (slide.css, the page's data-seat).
        expect(page.locator(".sl-mine button.sl-pickable")).to_have_count(16)
        expect(page.locator(".sl-other:visible")).to_have_count(2)
        expect(page.locator(f".sl-other[data-seat='{seat}']")).to_be_hidden()
        pick = page.get_by_role("button", name="Pick the face-down card at row 1, column 1")
        expect(pick).to_be_visible()

    table = Table.objects.get()
    rng = random.Random(4)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    middle_played = False
    while not all(page.locator(".result").count() for page in pages):
        assert time.monotonic() < deadline, "the game did not finish in time"
        moved = [take_a_turn(page, rng) for page in pages]
        done = table.moves.count()
        if not middle_played and done >= CLICKED_ROUNDS * ROUND:
            # Up to the last rounds, which are clicked again (the pages catch up first).
            left = CLICKED_ROUNDS * ROUND
            elsewhere(play_through_the_service, table, 16 * ROUND - left - done, rng)
            middle_played = True
            moved = []
        if not any(moved):
            every_page_catches_up(pages, table)

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert table.moves.count() == 16 * ROUND
    assert middle_played
    assert SLIDE.to_json(state_replay(table)) == table.state
    breakdown = table.outcome["details"]["breakdown"]
    for page in pages:
        expect(page.locator(".result")).to_contain_text("first place")
        result = page.locator(".result-details")
        expect(result).to_contain_text("The lowest total wins")
        expect(result.locator(".sl-final")).to_have_count(3)
        expect(result.locator(".sl-gone")).to_have_count(sum(b["cancelled"] for b in breakdown))
        expect(page.locator("button[name=action]")).to_have_count(0)
        # Every grid once, in the result; nothing left that looks like a move.
        expect(page.locator("#board .sl-grid:visible")).to_have_count(3)
        expect(page.locator(".sl-now, .sl-sliding, .sl-mine")).to_have_count(0)
