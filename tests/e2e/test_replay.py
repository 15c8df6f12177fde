"""A browser steps forward and back through the replay of a finished District Noir game."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests.factories import UserFactory
from tests.games.rated_games import finished_game

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def position(page: Page, step: int, total: int) -> None:
    expect(page.locator(".replay-position")).to_have_text(f"Move {step} of {total}")


def test_stepping_through_a_finished_game_forward_and_back(live_server, browser):
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    table = finished_game(anna, ben, seed=3)
    total = table.moves.count()
    url = live_server.url + reverse("table_replay", args=[table.pk])

    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    page.goto(url)
    position(page, 0, total)
    expect(page.locator(".final-result")).to_contain_text("anna")
    expect(page.locator(".seed")).to_have_text(str(table.seed))
    expect(page.locator("#reveal")).to_have_count(0)

    page.get_by_role("link", name="Next").click()
    position(page, 1, total)
    page.get_by_role("link", name="Next").click()
    position(page, 2, total)
    expect(page).to_have_url(f"{url}?step=2")
    page.get_by_role("link", name="Previous").click()
    position(page, 1, total)
    page.keyboard.press("ArrowRight")
    position(page, 2, total)
    page.keyboard.press("ArrowLeft")
    position(page, 1, total)

    page.get_by_role("link", name="End").click()
    position(page, total, total)
    # The board once, then the game's own result below it; no seat's whole board again.
    expect(page.locator("#replay #result")).to_be_visible()
    expect(page.locator(".reveal-seat")).to_have_count(0)
    expect(page.get_by_role("link", name="Next")).to_have_count(0)
    page.get_by_role("link", name="Previous").click()
    position(page, total - 1, total)
    expect(page.locator("#result")).to_have_count(0)
    page.get_by_role("link", name="Start").click()
    position(page, 0, total)
    page.close()


def test_the_replay_steps_without_javascript_on_a_phone(live_server, browser):
    anna, ben = UserFactory(username="anna"), UserFactory(username="ben")
    table = finished_game(anna, ben, seed=4)
    total = table.moves.count()
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server.url + reverse("table_replay", args=[table.pk]))
    page.get_by_role("link", name="Next").click()
    position(page, 1, total)
    page.get_by_role("link", name="End").click()
    position(page, total, total)
    expect(page.locator("#result")).to_be_visible()
    context.close()
