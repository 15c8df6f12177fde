"""The end of a game leads somewhere, in a real browser (issue 25, point 4): two players at a
finished District Noir table play a rematch, one by "Rematch", the other by "Accept the rematch"
that reaches their open page without a reload, and the new game starts; the replay and the lobby
are a click away; on a phone the winner and the buttons are on the first screen; and no finished
table of any game has an axe-core violation at a phone's or a desktop's width."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from games.catalog import playable_games
from games.live import broadcast
from games.models import Table
from games.rules import get_rules
from games.services.tables import table_rematch
from tests.e2e.axe import Visit, check_visits
from tests.e2e.pages import sign_in, wait_until
from tests.e2e.tables import a_table, elsewhere
from tests.factories import UserFactory
from tests.games.rated_games import finished_game, play_to_the_end

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def _signed_in(browser, base: str, username: str, viewport: dict) -> Page:
    page = browser.new_context(viewport=viewport).new_page()
    sign_in(page, base, username)
    return page


def test_two_players_play_again_and_the_new_game_starts(asgi_server, browser):
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    old = elsewhere(finished_game, anna, ben, seed=5)
    old_url = f"{asgi_server}/t/{old.pk}/"
    pages = {
        "anna": _signed_in(browser, asgi_server, "anna", {"width": 1280, "height": 800}),
        "ben": _signed_in(browser, asgi_server, "ben", PHONE),
    }
    for page in pages.values():
        page.goto(old_url)
        wait_until(page, "window.tableLive === true")  # a page of a game just over: still live
    winners = [name for name, rank in zip(("anna", "ben"), old.outcome["ranks"]) if rank == 0]
    headline = f"{winners[0]} wins" if len(winners) == 1 else "A shared win: anna, ben"
    for page in pages.values():
        expect(page.locator("#game-end-title")).to_have_text(headline)

    pages["anna"].get_by_role("button", name="Rematch").click()
    pages["anna"].wait_for_url(lambda url: url != old_url)
    new = Table.objects.get(pk=old.pk).next_table
    assert new is not None and pages["anna"].url == f"{asgi_server}/t/{new.pk}/"
    expect(pages["anna"].locator(".table-status")).to_contain_text("Waiting for players: 1 of 2")
    wait_until(pages["anna"], "window.tableLive === true")

    # Ben's page, open all along, learns of the offer from its socket.
    join = pages["ben"].get_by_role("button", name="Accept the rematch")
    expect(join).to_be_visible()
    expect(pages["ben"].get_by_role("button", name="Decline")).to_be_visible()
    expect(pages["ben"].locator(".next-steps")).to_contain_text("anna offers a rematch")
    join.click()
    pages["ben"].wait_for_url(f"{asgi_server}/t/{new.pk}/")

    new.refresh_from_db()
    assert new.is_running and new.seats.count() == 2
    for page in pages.values():  # anna's page is pushed the started game
        expect(page.locator(".dn-me")).to_be_visible()
        expect(page.locator("#board-public")).to_have_attribute("data-version", str(new.version))
    assert Table.objects.count() == 2


def test_the_replay_and_the_lobby_are_a_click_away_and_on_a_phones_first_screen(
    live_server, browser, monkeypatch
):
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    table = finished_game(anna, ben, seed=6)
    page = _signed_in(browser, live_server.url, "ben", PHONE)
    url = live_server.url + reverse("table_detail", args=[table.pk])
    page.goto(url)
    steps = page.locator(".next-steps")
    for shown in (
        page.locator("#game-end-title"),
        steps.get_by_role("button", name="Rematch"),
        steps.get_by_role("link", name="Watch the replay"),
        steps.get_by_role("link", name="Back to the lobby"),
    ):
        expect(shown).to_be_in_viewport(ratio=1)  # the first screen, without scrolling
    assert page.evaluate("window.scrollY") == 0
    expect(page.locator(".ranking li")).to_have_count(2)
    # The deal is the server's own (secrets), so the game may end either way.
    rules = get_rules("district-noir")
    ended_by_the_cities = rules.view(rules.from_json(table.state), None)["outcome"]["reason"]
    expect(page.locator(".result-details")).to_contain_text(
        "The game ended at once"
        if ended_by_the_cities == "city"
        else "Four rounds were played; the cards taken were scored."
    )

    steps.get_by_role("link", name="Watch the replay").click()
    page.wait_for_url(live_server.url + reverse("table_replay", args=[table.pk]))
    expect(page.locator(".replay-position")).to_contain_text("Move 0 of")
    page.goto(url)
    page.locator(".next-steps").get_by_role("link", name="Back to the lobby").click()
    page.wait_for_url(live_server.url + reverse("lobby"))
    expect(page.locator("main")).to_contain_text("District Noir")


def test_no_finished_table_has_an_axe_violation(live_server, browser, monkeypatch):
    """Every game's finished table at each size, light and dark: a player before anyone plays
    again, the other player offered to join the new table, and a visitor."""
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    me, others = UserFactory(username="axel"), [UserFactory() for _ in range(3)]
    rng = random.Random(31)
    visits: list[Visit] = []
    for rules in playable_games():
        alone = play_to_the_end(a_table(rules.slug, [me, *others]), rng)
        joining = play_to_the_end(a_table(rules.slug, [me, *others]), rng)
        table_rematch(table_id=joining.pk, user=joining.seats.get(position=1).user)
        alone_url = reverse("table_detail", args=[alone.pk])
        joining_url = reverse("table_detail", args=[joining.pk])
        visits += [
            Visit(f"{rules.slug} finished (player)", alone_url, "axel", ".next-steps"),
            Visit(f"{rules.slug} rematch (player)", joining_url, "axel", ".next-steps"),
            Visit(f"{rules.slug} rematch (visitor)", joining_url, None, ".next-steps"),
        ]
    found = check_visits(browser, live_server.url, visits, sign_in)
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)
