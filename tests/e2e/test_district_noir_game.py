"""Two people sign up, meet in the lobby and play District Noir to the end in their browsers."""

from __future__ import annotations

import random
import time

import pytest
from playwright.sync_api import Page, expect

from games.models import Table
from games.rules import get_rules
from tests.e2e.pages import click_a_move, every_page_catches_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DN = get_rules("district-noir")
GAME_TIMEOUT_S = 240


def sign_up(page: Page, base: str, name: str) -> None:
    page.goto(f"{base}/accounts/signup/")
    page.fill("input[name=email]", f"{name}@example.com")
    page.fill("input[name=username]", name)
    page.fill("input[name=password1]", "a long pass phrase 42")
    page.fill("input[name=password2]", "a long pass phrase 42")
    page.click("form button[type=submit]")
    expect(page.locator(".site-header")).to_contain_text(name)


def test_two_players_sign_up_meet_in_the_lobby_and_finish_a_game(
    live_server, browser, fast_polling
):
    base = live_server.url
    anna = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    ben = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    sign_up(anna, base, "anna")
    sign_up(ben, base, "ben")

    anna.goto(f"{base}/")
    card = anna.locator("#game-district-noir")
    card.get_by_text("Open a table for friends").click()
    card.locator("select[name='district-noir-num_seats']").select_option("2")
    card.get_by_role("button", name="Open table").click()
    expect(anna.locator(".table-status")).to_contain_text("Waiting for players")

    ben.goto(f"{base}/")
    ben.locator(".table-row", has_text="anna").get_by_role("button", name="Join").click()
    expect(ben.locator(".dn-row-panel")).to_be_visible()
    expect(anna.locator(".dn-row-panel")).to_be_visible()  # anna's page noticed by polling

    table = Table.objects.get()
    rng = random.Random(7)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    while not anna.locator(".result").count() or not ben.locator(".result").count():
        assert time.monotonic() < deadline, "the game did not finish in time"
        moved = click_a_move(anna, rng) or click_a_move(ben, rng)
        if not moved:
            every_page_catches_up([anna, ben], table)

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    outcome = DN.outcome(DN.from_json(table.state))
    for page in (anna, ben):
        expect(page.locator(".result")).to_contain_text("first place")
        reason = "City" if outcome.reason == "city" else "Four rounds were played"
        expect(page.locator(".result-details")).to_contain_text(reason)
    assert table.moves.count() >= 10
