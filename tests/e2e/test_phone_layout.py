"""On a phone, nothing on a finished table's page or its whole log spills sideways."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.catalog import playable_games
from games.live import broadcast
from games.services.tables import table_create, table_join
from tests.e2e.pages import sign_in
from tests.factories import UserFactory
from tests.games.rated_games import play_to_the_end

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
# Elements whose content is cut off or needs a sideways scroll, with the start of their text.
SPILLING = """() => [...document.querySelectorAll('.log li')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.replace(/\\s+/g, ' ').trim().slice(0, 100))"""


@pytest.mark.parametrize("rules", playable_games(), ids=lambda rules: rules.slug)
def test_a_finished_game_and_its_log_fit_a_phone(live_server, browser, rules, monkeypatch):
    # Nobody watches yet; and this thread runs the browser's event loop, where a broadcast
    # could not run (it would pause broadcasts for the next tests).
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    players = [UserFactory() for _ in range(max(2, rules.min_players))]
    if rules.slug == "gnav":
        players = [UserFactory() for _ in range(4)]
    table = table_create(
        user=players[0], game=rules.slug, num_seats=len(players), seconds_per_move=86400
    )
    for player in players[1:]:
        table_join(table_id=table.pk, user=player)
    play_to_the_end(table, random.Random(5))
    page = browser.new_context(viewport=PHONE).new_page()
    sign_in(page, live_server.url, players[0].username)
    for name in ("table_detail", "table_log"):
        page.goto(live_server.url + reverse(name, args=[table.pk]))
        assert page.evaluate(SPILLING) == [], name
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], (name, width)
