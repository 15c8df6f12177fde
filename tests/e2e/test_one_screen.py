"""Every game's table on one screen (#25.2): at a phone's, a tablet's and a laptop's size, when it
is the signed-in player's turn, the page opens with the first legal move's control inside the
viewport, without a scroll and not under the docked line, and nothing spills sideways (where the
first move is a card of Point City's market, the whole market is on the screen: any of its cards
may be the one the player takes); and axe-core finds no violation on the page as it is laid out at
that size.

The tables are made through the services (random moves until it is the player's turn), several
seat counts where a game has them (Slide's grids at 2 and 6 players, Point City alone and at four,
with its longest instruction) and both of Slide's kinds of turn. One browser, one page per size.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

import pytest
from django.urls import reverse
from playwright.sync_api import Page

from accounts.models import User
from games.catalog import playable_games
from games.live import broadcast
from games.models import Table
from games.rules import get_rules
from games.services.tables import table_create, table_join
from tests.conftest import play_random_moves
from tests.e2e.axe import COLOUR_RULES, EVERY_RULE, violations
from tests.e2e.pages import sign_in
from tests.e2e.tables import until_turn_of
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SIZES = {"390x844": (390, 844), "768x1024": (768, 1024), "1280x800": (1280, 800)}


@dataclass(frozen=True)
class Turn:
    """A table at the player's turn: its game, its number of seats, and the kind of move the
    turn must offer (None: any)."""

    game: str
    seats: int
    kind: str | None = None

    def __str__(self) -> str:
        return f"{self.game} ({self.seats} seats{f', {self.kind}' if self.kind else ''})"


def the_turns() -> list[Turn]:
    """Every playable game at its usual table, and the tables that need the most room."""
    turns = [Turn(rules.slug, max(2, rules.min_players)) for rules in playable_games()]
    extra = [
        Turn("slide", 2, "pick"),
        Turn("slide", 6, "pick"),
        Turn("slide", 6, "slide"),
        Turn("point-city", 1),
        Turn("point-city", 4),
        Turn("point-city", 4, "flip"),  # the longest instruction above the market
        Turn("point-city", 4, DRAW_ONLY),  # the pile's button is the one move
    ]
    games = {rules.slug for rules in playable_games()}
    return turns + [turn for turn in extra if turn.game in games]


def a_table_at_my_turn(turn: Turn, me: User, others: list[User], rng: random.Random) -> Table:
    players = [me, *others][: turn.seats]
    table = table_create(user=me, game=turn.game, num_seats=turn.seats, seconds_per_move=86400)
    for player in players[1:]:
        table_join(table_id=table.pk, user=player)
    # Into the game a little, as a table is when a player comes back to it: cards taken,
    # grids filled, cities built.
    if turn.kind == DRAW_ONLY:
        return only_the_draw_left(until_turn_of(table, me, rng))
    play_random_moves(table, rng.randrange(4, 16), rng, keep_running=True)
    return until_turn_of(table, me, rng, turn.kind)


# A Point City turn where drawing is the only move: every market card shows its building side
# (no line of resources to flip), and the player, at the start, has nothing to pay with.
DRAW_ONLY = "draw only"


def only_the_draw_left(table: Table) -> Table:
    rules = get_rules(table.game)
    position = table.seats.get(user=table.created_by).position
    players = [dict(p) for p in table.state["players"]]
    players[position] = dict(players[position], stock=[], city=[])
    state = dict(table.state, up=[True] * len(table.state["up"]), players=players)
    actions = rules.legal_actions(rules.from_json(state), position)
    assert actions == [{"type": "draw"}], actions
    Table.objects.filter(pk=table.pk).update(state=state, version=table.version + 1)
    table.refresh_from_db()
    return table


# Where the first legal move's control is, as the page opens. Its control is the button that
# plays it; a Point City take or flip starts with a click on its (first) card in the market,
# whose payments show only once two cards are picked, so there every card of the market must be
# on the screen too. A control under the docked line (a sticky .board-dock it is not part of)
# cannot be clicked: it counts as off the screen.
FIRST_MOVE = """([action, value]) => {
  const shown = el => !!el && el.getClientRects().length > 0
    && getComputedStyle(el).visibility !== "hidden";
  let control = [...document.querySelectorAll("#board-form [name=action]")]
    .find(button => button.value === value && shown(button));
  const cell = action.cells ? action.cells[0] : action.cell;
  if (!control && cell) {
    const at = `${cell[0]}${cell[1]}`;
    control = document.querySelector(`#board-form button.pc-cell[data-cell="${at}"]`);
  }
  if (!shown(control)) return null;
  const dock = [...document.querySelectorAll("#board-private[data-my-turn='1'] .board-dock")]
    .find(shown);
  const where = el => {
    const box = el.getBoundingClientRect();
    const over = dock && !dock.contains(el) ? dock.getBoundingClientRect() : null;
    const covered = !!over && over.top < box.bottom && over.bottom > box.top;
    return {top: box.top, bottom: box.bottom, covered, html: el.outerHTML.slice(0, 120)};
  };
  const offScreen = place => place.top < 0 || place.bottom > innerHeight + 1 || place.covered;
  const market = [...document.querySelectorAll("#board-form .pc-market-pick button.pc-cell")]
    .map(where).filter(offScreen);
  return {...where(control), height: innerHeight, scrolled: scrollY,
          wide: document.documentElement.scrollWidth, width: innerWidth,
          offScreen: offScreen(where(control)), market};
}"""


def first_move(table: Table, me: User) -> tuple[dict, str]:
    rules = get_rules(table.game)
    position = table.seats.get(user=me).position
    action = rules.legal_actions(rules.from_json(table.state), position)[0]
    return action, json.dumps(action, separators=(",", ":"), sort_keys=True)


def where_is_the_first_move(page: Page, table: Table, me: User) -> dict | None:
    return page.evaluate(FIRST_MOVE, list(first_move(table, me)))


def test_every_game_s_first_move_is_on_the_first_screen(live_server, browser, monkeypatch):
    # Nobody watches; and this thread runs the browser's event loop, where a broadcast could
    # not run.
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    # Names as long as people's are (the seats' and scores' strips wrap as they do for them).
    names = ["Magdalena Nová", "Bartholomew K", "Zsófia Kovács", "Jordi Puigvert", "Ľubomír H."]
    me, others = UserFactory(username="axel"), [UserFactory(display_name=n) for n in names]
    rng = random.Random(2025)
    tables = [(turn, a_table_at_my_turn(turn, me, others, rng)) for turn in the_turns()]
    wrong: list[str] = []
    for size, (width, height) in SIZES.items():
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        sign_in(page, live_server.url, me.username)
        for turn, table in tables:
            page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
            found = where_is_the_first_move(page, table, me)
            where = f"{turn} at {size}"
            if found is None:
                wrong.append(f"{where}: no control shown for {first_move(table, me)[1]}")
                continue
            if found["scrolled"]:
                wrong.append(f"{where}: the page opened scrolled by {found['scrolled']} px")
            if found["offScreen"]:
                wrong.append(
                    f"{where}: the first move is at {found['top']:.0f}-{found['bottom']:.0f} px"
                    f"{', under the docked line' if found['covered'] else ''}, "
                    f"the screen {found['height']} px tall: {found['html']}"
                )
            for card in found["market"]:
                wrong.append(
                    f"{where}: a market card is at {card['top']:.0f}-{card['bottom']:.0f} px"
                    f"{', under the docked line' if card['covered'] else ''}: {card['html']}"
                )
            if found["wide"] > found["width"]:
                wrong.append(f"{where}: the page is {found['wide']} px wide")
            wrong += [f"{where} light: {v}" for v in violations(page, EVERY_RULE)]
            page.emulate_media(color_scheme="dark")
            wrong += [f"{where} dark: {v}" for v in violations(page, COLOUR_RULES)]
            page.emulate_media(color_scheme="light")
        page.context.close()
    assert not wrong, "\n".join(wrong)
