"""In a real browser: the theme chosen in the display menu wins over the system's, at once and
after a reload, for a player and for a visitor; dark is really dark; the open menu passes
axe-core in both themes; and the lobby's rows say when each table last moved, in words
(issue 25, points 6 and 7)."""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.base import AXE_SCRIPT
from django.urls import reverse
from playwright.sync_api import Page, expect

from accounts.display import COOKIE_NAME
from games.live import broadcast
from games.rules import get_rules
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from tests.e2e.axe import COLOUR_RULES, EVERY_RULE, SIZES, violations
from tests.e2e.pages import sign_in, wait_until
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DN = get_rules("district-noir")

# The relative luminance of an element's background, as the browser computed it (colour-mix()
# results come as color(srgb r g b), plain colours as rgb(r, g, b)).
LUMINANCE = """selector => {
  const value = getComputedStyle(document.querySelector(selector)).backgroundColor;
  const numbers = value.match(/[\\d.]+/g).map(Number);
  const rgb = numbers.slice(0, 3);
  const srgb = value.startsWith("color(") ? rgb : rgb.map(n => n / 255);
  const linear = c => c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  const [r, g, b] = srgb.map(linear);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}"""
DARK_ENOUGH = 0.03  # the panels' paper: #1f2422 is 0.017; the light paper #fbf8f1 is 0.94


def _looks(page: Page, theme: str, *, dark: bool) -> None:
    """<html> carries ``theme`` and the panels are dark, or light."""
    wait_until(page, f"document.documentElement.dataset.theme === {theme!r}")
    luminance = page.evaluate(LUMINANCE, ".panel")
    assert (luminance < DARK_ENOUGH) == dark, f"{theme}: panel luminance {luminance}"


def _choose(page: Page, label: str) -> None:
    """Opens the header's display menu and picks a theme; the menu saves it in the background."""
    page.locator(".display-menu summary").click()
    page.locator(".display-theme").get_by_label(label, exact=True).check()
    expect(page.locator(".display-status")).to_have_text("Saved")


def _axe_the_open_menu(page: Page, where: str) -> list[str]:
    page.evaluate(AXE_SCRIPT)
    page.locator(".display-menu summary").click()
    expect(page.locator(".display-form")).to_be_visible()
    found = [f"{where} menu: {v}" for v in violations(page, EVERY_RULE)]
    for theme in ("dark", "light"):
        page.evaluate("theme => { document.documentElement.dataset.theme = theme; }", theme)
        found += [f"{where} menu, {theme}: {v}" for v in violations(page, COLOUR_RULES)]
    return found


def test_a_player_chooses_dark_on_a_light_system_and_keeps_it(live_server, browser):
    alice = UserFactory(username="alice")
    page = browser.new_context(viewport=SIZES[390], color_scheme="light").new_page()
    sign_in(page, live_server.url, "alice")
    page.goto(live_server.url + reverse("lobby"))
    _looks(page, "system", dark=False)  # as the system is
    _choose(page, "Dark")
    _looks(page, "dark", dark=True)
    assert page.evaluate(LUMINANCE, ".site-header") < 0.01
    alice.refresh_from_db()
    assert alice.display_theme == "dark"
    page.reload()  # written by the server now
    _looks(page, "dark", dark=True)
    # Another device of hers, without the cookie: the profile keeps the choice.
    other = browser.new_context(viewport=SIZES[1280], color_scheme="light").new_page()
    sign_in(other, live_server.url, "alice")
    _looks(other, "dark", dark=True)
    page.context.close()
    other.context.close()


def test_a_visitor_chooses_light_on_a_dark_system_and_keeps_it(live_server, browser):
    context = browser.new_context(viewport=SIZES[768], color_scheme="dark")
    page = context.new_page()
    page.goto(live_server.url + reverse("account_signup"))
    _looks(page, "system", dark=True)  # as the system is
    _choose(page, "Light")
    _looks(page, "light", dark=False)
    cookie = next(c for c in context.cookies() if c["name"] == COOKIE_NAME)
    assert cookie["value"].endswith("-light")
    page.goto(live_server.url + reverse("lobby"))
    _looks(page, "light", dark=False)
    _choose(page, "As the system")
    _looks(page, "system", dark=True)  # the system's again
    context.close()


def test_the_open_display_menu_passes_axe_in_both_themes(live_server, browser):
    found: list[str] = []
    for width in (390, 1280):
        page = browser.new_context(viewport=SIZES[width]).new_page()
        page.goto(live_server.url + reverse("lobby"))
        found += _axe_the_open_menu(page, f"{width}px")
        page.context.close()
    assert not found, "\n".join(found)


def _moved(table) -> None:
    """One move at ``table``, by the seat it waits for."""
    table.refresh_from_db()
    seat = table.seats.get(is_waiting=True)
    action = DN.legal_actions(DN.from_json(table.state), seat.position)[0]
    move_play(table_id=table.pk, user=seat.user, action=action, version=table.version)


def test_the_lobby_says_when_each_table_last_moved_in_words(live_server, browser, monkeypatch):
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    tables = []
    for _ in range(2):
        table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
        table_join(table_id=table.pk, user=bob)
        tables.append(table)
    _moved(tables[1])
    page = browser.new_context(viewport=SIZES[390]).new_page()
    sign_in(page, live_server.url, "alice")
    page.goto(live_server.url + reverse("lobby"))
    for table in tables:
        row = page.locator(".table-row", has=page.locator(f'a[href="/t/{table.pk}/"]'))
        expect(row.locator(".table-number")).to_have_text(f"#{table.pk}")
        expect(row.locator(".clock time")).to_contain_text("left")
    started = page.locator(".table-row", has=page.locator(f'a[href="/t/{tables[0].pk}/"]'))
    moved = page.locator(".table-row", has=page.locator(f'a[href="/t/{tables[1].pk}/"]'))
    expect(started.locator(".moved")).to_contain_text("Started:")
    expect(moved.locator(".moved")).to_contain_text("Last move:")
    # The bot level's label is seen, not only read.
    label = page.locator('label[for="level-district-noir"]')
    assert label.bounding_box()["width"] > 30
    expect(page.get_by_label("Bot level").first).to_have_value("medium")
    # Intl.RelativeTimeFormat's words ("now", "5 seconds ago"), the full date in its title.
    expect(moved.locator("time[data-since]")).to_have_text(re.compile(r"^(now|\d+ seconds? ago)$"))
    expect(moved.locator("time[data-since]")).to_have_attribute("title", re.compile(r"\d"))
    page.context.close()
