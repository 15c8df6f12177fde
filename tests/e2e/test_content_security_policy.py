"""A whole game under the enforced Content-Security-Policy, in a real Chromium, and not one
violation reported (#19.7).

The production ASGI server (uvicorn, as in production) serves the pages, so the board's
websocket is opened under ``connect-src 'self'``: the game is played over it (polling is off on
this server). Every document the browser loads reports each ``securitypolicyviolation`` event
to the test, and the console is read for the browser's own "Refused to ..." lines and for
Permissions-Policy features it does not know.
"""

from __future__ import annotations

import random
import re
import time

import pytest
from playwright.sync_api import BrowserContext, Page, expect

from games.models import Table
from tests.e2e.pages import sign_in, wait_until
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

GAME_TIMEOUT_S = 240
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", function (event) {
  window.reportViolation([event.effectiveDirective, event.blockedURI, event.sourceFile,
                          event.lineNumber, event.sample].join(" | "));
});
"""


@pytest.fixture(scope="module")
def server(instant_bots_server: str) -> str:
    return instant_bots_server


class Watch:
    """What a browser context reported: CSP violations, console lines about policies."""

    def __init__(self, context: BrowserContext) -> None:
        self.violations: list[str] = []
        self.console: list[str] = []
        context.expose_function("reportViolation", self._violation)
        context.add_init_script(REPORT_VIOLATIONS)

    def _violation(self, report: str) -> None:
        self.violations.append(report)

    def page(self, context: BrowserContext) -> Page:
        page = context.new_page()
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.console.append(f"page error: {error}"))
        return page

    def _console(self, message) -> None:
        text = message.text
        policy_words = ("Content Security Policy", "Permissions-Policy", "Refused to", "EvalError")
        if any(word in text for word in policy_words):
            self.console.append(f"{message.type}: {text}")


def play_until_the_end(page: Page, rng: random.Random) -> None:
    """Plays a random offered move whenever it is this page's turn, the bots answering over the
    socket, until the result shows."""
    deadline = time.monotonic() + GAME_TIMEOUT_S
    move_or_end = page.locator(".result, #board-form button[name=action]:not([disabled])").first
    while not page.locator(".result").count():
        assert time.monotonic() < deadline, "the game did not finish in time"
        expect(move_or_end).to_be_visible(timeout=60000)
        buttons = page.locator("#board-form button[name=action]:not([disabled])")
        count = buttons.count()
        if page.locator(".result").count() or not count:
            continue
        version = page.locator("#board-public").get_attribute("data-version") or ""
        buttons.nth(rng.randrange(count)).click()
        expect(page.locator("#board-public")).not_to_have_attribute("data-version", version)


def test_a_whole_game_against_bots_reports_no_policy_violation(server, browser):
    UserFactory(username="cspplayer")
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    watch = Watch(context)
    page = watch.page(context)
    sign_in(page, server, "cspplayer")

    lobby = page.goto(f"{server}/")
    policy = lobby.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert "camera=()" in lobby.headers["permissions-policy"]

    bots = page.locator("form.bot-form:has(input[name=game][value=district-noir])")
    bots.locator("select[name=level]").select_option("easy")
    bots.locator("button").click()
    page.wait_for_url(re.compile(r".*/t/\d+/$"))
    # The board's websocket opened under connect-src 'self' (ws: of the page's own host).
    wait_until(page, "window.tableLive === true")
    play_until_the_end(page, random.Random(19))
    table = Table.objects.get()
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    assert table.moves.count() >= 10

    # The other pages a player reaches from there, and the header's two scripts.
    for url in (
        "/no-such-page/",
        f"/t/{table.pk}/log/",
        f"/t/{table.pk}/replay/",
        "/games/district-noir/",
        "/games/district-noir/leaderboard/",
        "/players/cspplayer/",
    ):
        page.goto(f"{server}{url}")
    page.locator(".display-menu summary").click()
    page.locator("#display-warmth").fill("80")
    expect(page.locator("html")).to_have_attribute("data-warmth", "80")
    warmth = page.evaluate(
        "getComputedStyle(document.documentElement).getPropertyValue('--warmth')"
    )
    assert float(warmth) == pytest.approx(0.8)
    expect(page.locator(".display-status")).to_have_text("Saved")
    page.locator("#language-select").select_option("cs")  # static/js/language.js sends it
    expect(page.locator("html")).to_have_attribute("lang", "cs")

    assert watch.violations == []
    assert watch.console == []
