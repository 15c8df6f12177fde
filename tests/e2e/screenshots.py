"""The screenshots in docs/screenshots/ (issue 25): every game's table at a phone's, a tablet's
and a laptop's size, when it is the signed-in player's turn and when the game is over.

Not part of the default run (the file's name does not start with ``test_``): ``make
screenshots`` runs it by its path, on a throwaway test database like every browser test, and
writes the PNGs and the list in docs/screenshots/README.md. tests/test_screenshots.py checks,
in the default run, that every game and size has its file and that the list names them.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from django.urls import reverse

from games.catalog import playable_games
from games.live import broadcast
from games.models import Table
from games.services import tables as table_services
from tests.conftest import play_random_moves
from tests.e2e.axe import SIZES
from tests.e2e.pages import sign_in
from tests.e2e.tables import a_table, until_turn_of
from tests.factories import UserFactory
from tests.games.rated_games import play_to_the_end
from tests.support.screenshots import DIRECTORY, STATES, file_name, readme

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: JPEG, not PNG: the felt and the cards' shading make a PNG of one screen 100-700 kB.
QUALITY = 55
NAMES = ["alice", "bob", "carol", "dave"]


def a_turn(game: str, players: list, rng: random.Random) -> Table:
    """A table some moves into the game, at alice's turn. The deal is shuffled afresh each
    time: random moves may end a game before her turn comes, then another table is dealt."""
    for _ in range(5):
        table = a_table(game, players)
        play_random_moves(table, rng.randrange(6, 14), rng, keep_running=True)
        try:
            return until_turn_of(table, players[0], rng)
        except (AssertionError, IndexError):
            continue
    raise AssertionError(f"no {game} table came to alice's turn")


def the_tables(rng: random.Random) -> dict[tuple[str, str], Table]:
    """(game, state) -> a table in that state, alice seated at it."""
    players = [UserFactory(username=name) for name in NAMES]
    tables: dict[tuple[str, str], Table] = {}
    for rules in playable_games():
        tables[rules.slug, "turn"] = a_turn(rules.slug, players, rng)
        tables[rules.slug, "end"] = play_to_the_end(a_table(rules.slug, players), rng)
    return tables


def test_make_the_screenshots(live_server, browser, monkeypatch):
    # Nobody watches; and this thread runs the browser's event loop, where a broadcast could
    # not run.
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    # The same deals every time (a table's seed is secret and random): the pictures change only
    # when the pages do, and a run without a change to them leaves git nothing to commit.
    deals = random.Random(25)
    monkeypatch.setattr(table_services, "secrets", SimpleNamespace(randbits=deals.getrandbits))
    tables = the_tables(random.Random(25))
    DIRECTORY.mkdir(parents=True, exist_ok=True)
    for old in DIRECTORY.glob("*.jpg"):
        old.unlink()
    for width, viewport in SIZES.items():
        # The light theme whatever the machine's: the pictures do not depend on who runs this.
        context = browser.new_context(viewport=viewport, color_scheme="light")
        page = context.new_page()
        sign_in(page, live_server.url, NAMES[0])
        for (game, state), table in tables.items():
            page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
            page.wait_for_load_state("load")
            page.evaluate("document.fonts.ready")
            # The viewport as the player sees it on arrival, not the whole page.
            page.screenshot(
                path=DIRECTORY / file_name(game, state, width),
                type="jpeg",
                quality=QUALITY,
                animations="disabled",
            )
        context.close()
    (DIRECTORY / "README.md").write_text(readme())
    assert sorted(p.name for p in DIRECTORY.glob("*.jpg")) == sorted(
        file_name(game, state, width)
        for game in (rules.slug for rules in playable_games())
        for state in STATES
        for width in SIZES
    )
