"""A long display name with no space in it wraps inside its panel wherever players are listed:
leaderboards, lobby rows, the player page and its chart, the replay, a finished table."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page

from games.live import broadcast
from games.models import Rating
from games.selectors.ratings import PROVISIONAL_GAMES
from games.services.tables import table_create
from tests.e2e.pages import sign_in
from tests.factories import UserFactory
from tests.games.rated_games import finished_game, start_game

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

LONG_NAME = "Wolfeschlegelsteinhausenbergerdorff" + "WWWWW"
# Panels whose content reaches past their edge, with the start of their text.
SPILLING_PANELS = """() => [...document.querySelectorAll('main .panel')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.replace(/\\s+/g, ' ').trim().slice(0, 80))"""


def assert_fits(page: Page, width: int, where: str) -> None:
    assert LONG_NAME in page.content(), where
    assert page.evaluate(SPILLING_PANELS) == [], where
    assert page.evaluate("document.documentElement.scrollWidth") <= width, where


@pytest.mark.parametrize("width", [390, 1280])
def test_a_forty_character_name_stays_inside_its_panels(live_server, browser, monkeypatch, width):
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    assert len(LONG_NAME) == 40
    long, other = UserFactory(display_name=LONG_NAME), UserFactory()
    finished = finished_game(long, other, seed=1)
    # On the leaderboard proper as well as on the provisional list.
    Rating.objects.filter(user=long).update(games_played=PROVISIONAL_GAMES)
    start_game(long, other)  # a row of "Your tables"
    table_create(user=long, game="district-noir", num_seats=2, seconds_per_move=86400)
    total = finished.moves.count()
    replay = reverse("table_replay", args=[finished.pk])

    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    sign_in(page, live_server.url, other.username)
    for where in (
        reverse("lobby"),
        reverse("leaderboard", args=["district-noir"]),
        reverse("game_page", args=["district-noir"]),
        reverse("player_profile", args=[long.username]),
        reverse("player_profile", args=[other.username]),
        replay,
        f"{replay}?step={total}",
        reverse("table_detail", args=[finished.pk]),  # "... wins" and the places at the top
    ):
        page.goto(live_server.url + where)
        assert_fits(page, width, where)
    page.context.close()
