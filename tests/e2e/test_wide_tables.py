"""On a phone, a game's score tables stay inside their panel: too wide, they scroll visibly
inside it, and the scrolling region is reachable by keyboard."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from games.catalog import playable_games
from games.live import broadcast
from games.services.tables import table_create, table_join
from tests.e2e.pages import sign_in, wait_until
from tests.factories import UserFactory
from tests.games.rated_games import play_to_the_end

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
# Panels whose content reaches past their edge, with the start of their text.
SPILLING_PANELS = """() => [...document.querySelectorAll('main .panel')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.replace(/\\s+/g, ' ').trim().slice(0, 80))"""
# Boxes that scroll sideways but that a keyboard cannot reach, or that no label names.
UNREACHABLE_SCROLLERS = """() => [...document.querySelectorAll('main *')]
    .filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX)
                 && e.scrollWidth > e.clientWidth + 1)
    .filter(e => e.tabIndex !== 0 || e.getAttribute('role') !== 'region'
                 || !e.getAttribute('aria-label'))
    .map(e => e.outerHTML.slice(0, 120))"""
# The tables of a result that are not inside a keyboard-reachable, labelled scrolling region.
TABLES_OUTSIDE_A_REGION = """() =>
    [...document.querySelectorAll('.result table, .result-details table, .final-result table')]
    .filter(t => !t.closest('.table-scroll[role=region][tabindex="0"][aria-label]'))
    .map(t => t.className)"""
# The shadow that shows a region scrolls: inset box shadows that follow its scroll position, so
# that its text stays on solid paper.
CUE = "e => getComputedStyle(e).boxShadow"


def finished_table(slug: str, players: int, seed: int):
    users = [UserFactory() for _ in range(players)]
    table = table_create(user=users[0], game=slug, num_seats=players, seconds_per_move=86400)
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    return play_to_the_end(table, random.Random(seed)), users


def assert_fits(page: Page, where: str) -> None:
    assert page.evaluate(SPILLING_PANELS) == [], where
    assert page.evaluate(UNREACHABLE_SCROLLERS) == [], where
    assert page.evaluate(TABLES_OUTSIDE_A_REGION) == [], where
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], where


@pytest.mark.parametrize("rules", playable_games(), ids=lambda rules: rules.slug)
def test_every_result_table_fits_a_phone_or_scrolls_inside_its_panel(
    live_server, browser, rules, monkeypatch
):
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    table, users = finished_table(rules.slug, rules.max_players, seed=1)
    page = browser.new_context(viewport=PHONE).new_page()
    sign_in(page, live_server.url, users[0].username)
    page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
    expect(page.locator(".result")).to_be_visible()
    assert_fits(page, "table")
    total = table.moves.count()
    page.goto(live_server.url + reverse("table_replay", args=[table.pk]) + f"?step={total}")
    expect(page.locator(".replay-position")).to_have_text(f"Move {total} of {total}")
    assert_fits(page, "replay")
    page.context.close()


def test_district_noir_s_score_table_scrolls_by_keyboard_with_a_visible_cue(
    live_server, browser, monkeypatch
):
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    # Only a game scored at the end shows the breakdown (one with all three City cards does not).
    for seed in range(20):
        table, users = finished_table("district-noir", 2, seed=seed)
        if table.outcome["reason"] == "score":
            break
    assert table.outcome["reason"] == "score"
    page = browser.new_context(viewport=PHONE).new_page()
    sign_in(page, live_server.url, users[0].username)
    page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
    region = page.locator(".table-scroll:has(table.dn-breakdown)")
    expect(region).to_have_attribute("role", "region")
    expect(region).to_have_attribute("tabindex", "0")
    expect(region).to_have_attribute("aria-label", "Scores in detail")
    # Reached with the Tab key, then scrolled with the arrow keys, as a keyboard user would.
    page.locator(".result h2").click()
    for _ in range(30):
        if region.evaluate("e => e === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(region).to_be_focused()
    if region.evaluate("e => e.scrollWidth > e.clientWidth"):
        assert "inset" in region.evaluate(CUE)  # at the start: a shadow at the right edge
        page.keyboard.press("ArrowRight")
        wait_until(
            page, "document.querySelector('.table-scroll:has(.dn-breakdown)').scrollLeft > 0"
        )
    assert_fits(page, "table")
    page.context.close()
