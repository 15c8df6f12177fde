"""What the screenshots in docs/screenshots/ showed unfinished (issue 25), measured in a real
browser:

- the phone's header takes two rows, in every language;
- a table waiting for the viewer alone does not draw "Waiting for" their own name beside their
  "Your turn" (Gnav says "Your turn" twice, not four times);
- every game's final scores are whole beside the places on a laptop's screen;
- Point City's docked moves never hide a market card scrolled (or tabbed) to the screen's bottom;
- District Noir's card words stay on their cards in every language;
- every panel title on a board has one size.
"""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.catalog import playable_games
from games.live import broadcast
from tests.conftest import play_random_moves
from tests.e2e.pages import sign_in
from tests.e2e.tables import a_table, until_turn_of
from tests.factories import UserFactory
from tests.games.rated_games import play_to_the_end

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}

# The rows the header's items sit in: their distinct tops, a few pixels apart at most.
HEADER_ROWS = """() => {
  const items = [...document.querySelectorAll(
    ".site-header .brand, .site-header nav > *, .site-header nav > form > select")]
    .filter(el => el.getClientRects().length && getComputedStyle(el).display !== "none")
    .filter(el => !el.matches("form.language-form"));
  const tops = [];
  for (const el of items) {
    const top = el.getBoundingClientRect().top;
    if (!tops.some(t => Math.abs(t - top) < 12)) tops.push(top);
  }
  return tops.length;
}"""


@pytest.fixture
def no_broadcasts(monkeypatch):
    # Nobody watches; and this thread runs the browser's event loop, where a broadcast could
    # not run.
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)


def test_the_phone_header_takes_two_rows_in_every_language(live_server, browser):
    UserFactory(username="alexandra")
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    sign_in(page, live_server.url, "alexandra")
    rows = {}
    for language in ("en", "cs", "sk", "ca", "hu"):
        page.set_extra_http_headers({"Accept-Language": language})
        page.goto(live_server.url + reverse("lobby"))
        assert page.locator("html").get_attribute("lang") == language
        rows[language] = page.evaluate(HEADER_ROWS)
    context.close()
    assert all(n <= 2 for n in rows.values()), rows


STATUS_WIDTH = (
    "() => document.querySelector('#board .seats .table-status').getBoundingClientRect().width"
)


def test_a_table_waiting_for_the_viewer_alone_does_not_say_it_beside_their_turn(
    live_server, browser, no_broadcasts
):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = until_turn_of(a_table("district-noir", [alice, bob]), alice, random.Random(3))
    url = live_server.url + reverse("table_detail", args=[table.pk])
    widths = {}
    for viewer in ("alice", "bob"):
        context = browser.new_context(viewport=LAPTOP)
        page = context.new_page()
        sign_in(page, live_server.url, viewer)
        page.goto(url)
        status = page.locator("#board .seats .table-status")
        assert status.text_content().strip() == "Waiting for alice"  # a screen reader's
        widths[viewer] = page.evaluate(STATUS_WIDTH)
        context.close()
    assert widths["alice"] <= 1 < widths["bob"], widths


# Every score table of the result, and how much wider than its room it is (0: whole).
CUT_OFF = """() => [...document.querySelectorAll(
    ".result-details .table-scroll, .result-details table")]
  .map(el => ({what: el.className, over: el.scrollWidth - el.clientWidth,
               right: el.getBoundingClientRect().right,
               room: el.closest(".result-details").getBoundingClientRect().right}))
  .filter(t => t.over > 1 || t.right > t.room + 1)"""


def test_a_finished_game_s_scores_are_whole_beside_the_places(live_server, browser, no_broadcasts):
    players = [UserFactory(username=name) for name in ("alice", "bob", "carol", "dave")]
    rng = random.Random(7)
    tables = {
        rules.slug: play_to_the_end(a_table(rules.slug, players), rng) for rules in playable_games()
    }
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    sign_in(page, live_server.url, "alice")
    cut = {}
    for game, table in tables.items():
        page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
        beside = page.evaluate(
            "() => document.querySelector('.result-details').getBoundingClientRect().left"
            " > document.querySelector('.game-end').getBoundingClientRect().right"
        )
        assert beside, f"{game}: the result is not beside the places at 1280"
        if found := page.evaluate(CUT_OFF):
            cut[game] = found
    context.close()
    assert not cut, cut


# Each enabled card of the market that the docked moves cover when it is scrolled to the
# bottom of the screen (as a player scrolling down meets it) or to its middle.
COVERED = """(where) => {
  const covered = [];
  for (const cell of document.querySelectorAll("#board-form button.pc-cell:not([disabled])")) {
    cell.scrollIntoView({block: where});
    const box = cell.getBoundingClientRect();
    const x = box.left + box.width / 2, y = Math.min(box.bottom - 4, innerHeight - 4);
    const hit = document.elementFromPoint(x, box.top + box.height / 2);
    if (!hit || !cell.contains(hit)) covered.push(`${cell.dataset.cell} (${where})`);
  }
  scrollTo(0, 0);
  return covered;
}"""


@pytest.mark.parametrize("size", ["390x844", "768x1024", "1280x800"])
def test_point_city_s_docked_moves_leave_every_market_card_reachable(
    live_server, browser, no_broadcasts, size
):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = until_turn_of(a_table("point-city", [alice, bob]), alice, random.Random(11), "take")
    width, height = (int(n) for n in size.split("x"))
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    sign_in(page, live_server.url, "alice")
    page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
    covered = page.evaluate(COVERED, "end") + page.evaluate(COVERED, "center")
    # With one card picked, the dock says what to pick next; with two, it offers the payments.
    first = page.locator("#board-form button.pc-cell:not([disabled])").first
    first.click()
    covered += page.evaluate(COVERED, "end")
    context.close()
    assert not covered, covered


# Each card label drawn wider than its card (a word longer than the card is wide).
SPILLED_LABELS = """() => [...document.querySelectorAll("#board .card .label")]
  .filter(label => label.getClientRects().length && label.getBoundingClientRect().width > 2)
  .filter(label => {
    const box = label.getBoundingClientRect();
    const card = label.closest(".card").getBoundingClientRect();
    return label.scrollWidth > label.clientWidth + 1 || box.left < card.left - .5
      || box.right > card.right + .5;
  })
  .map(label => label.textContent.trim())"""


@pytest.mark.parametrize("size", ["390x844", "768x1024", "1280x800"])
def test_district_noir_s_card_labels_stay_on_their_cards(live_server, browser, no_broadcasts, size):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    rng = random.Random(5)
    table = a_table("district-noir", [alice, bob])
    play_random_moves(table, 14, rng, keep_running=True)
    table = until_turn_of(table, alice, rng)
    width, height = (int(n) for n in size.split("x"))
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    sign_in(page, live_server.url, "alice")
    spilled = {}
    for language in ("en", "cs", "sk", "ca", "hu"):
        page.set_extra_http_headers({"Accept-Language": language})
        page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
        assert page.locator("#board .card .label").count() > 5
        if found := page.evaluate(SPILLED_LABELS):
            spilled[language] = sorted(set(found))
    context.close()
    assert not spilled, spilled


SAID = """(text) => [...document.querySelectorAll("main *")]
  .filter(el => el.children.length === 0 && el.textContent.trim() === text)
  .filter(el => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden")
  .filter(el => {  // drawn: neither it nor a box around it clipped to a pixel (a screen reader's)
    for (let box = el; box && box.tagName !== "MAIN"; box = box.parentElement) {
      const contents = getComputedStyle(box).display === "contents";
      if (!contents && box.getBoundingClientRect().width <= 2) return false;
    }
    return true;
  }).length"""


def test_gnav_says_your_turn_twice_not_four_times(live_server, browser, no_broadcasts):
    """The title band's badge and the middle of the table; not the seat's tag too, nor
    "Waiting for" the player's own name."""
    players = [UserFactory(username=name) for name in ("alice", "bob", "carol", "dave")]
    table = until_turn_of(a_table("gnav", players), players[0], random.Random(9))
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    sign_in(page, live_server.url, "alice")
    page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
    assert page.evaluate(SAID, "Your turn") == 2
    assert page.evaluate(STATUS_WIDTH) <= 1
    context.close()


TITLE_SIZES = """() => [...document.querySelectorAll("#board .panel > h2:not(.game-end-headline)")]
  .filter(h => h.getBoundingClientRect().width > 2)
  .map(h => `${getComputedStyle(h).fontSize} ${h.textContent.trim().slice(0, 30)}`)"""


def test_every_panel_title_on_a_board_has_one_size(live_server, browser, no_broadcasts):
    players = [UserFactory(username=name) for name in ("alice", "bob", "carol", "dave")]
    rng = random.Random(13)
    tables = []
    for rules in playable_games():
        tables.append(until_turn_of(a_table(rules.slug, players), players[0], rng))
        tables.append(play_to_the_end(a_table(rules.slug, players), rng))
    context = browser.new_context(viewport=LAPTOP)
    page = context.new_page()
    sign_in(page, live_server.url, "alice")
    sizes = {}
    for table in tables:
        page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
        for title in page.evaluate(TITLE_SIZES):
            size, _, text = title.partition(" ")
            sizes.setdefault(size, []).append(f"{table.game}: {text}")
    context.close()
    assert len(sizes) == 1, sizes
