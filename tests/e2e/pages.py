"""What several browser tests do the same way."""

from __future__ import annotations

import random
import time

from playwright.sync_api import Browser, Page, expect

from games.models import Table

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


def sign_in(page: Page, base: str, username: str) -> None:
    """Signs in through the sign-in form, as a player would, and waits for the header."""
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    expect(page.locator(".site-header")).to_contain_text(username)


def signed_in_page(browser: Browser, base: str, username: str) -> Page:
    """A page of a browser context of its own (its own cookies), signed in as ``username``."""
    page = browser.new_context().new_page()
    sign_in(page, base, username)
    return page


def every_page_catches_up(pages: list[Page], table: Table) -> None:
    """Waits until every page shows the table as it is now: after one page's move, the
    others' boards arrive by their poll or their socket (no fixed wait: the state itself)."""
    table.refresh_from_db()
    for page in pages:
        expect(page.locator("#board-public")).to_have_attribute("data-version", str(table.version))


def wait_for_a_move_or_the_end(page: Page) -> None:
    """Waits until this page offers a move or shows the result (bots move meanwhile)."""
    expect(
        page.locator(".result, #board-form button[name=action]:not([disabled])").first
    ).to_be_visible(timeout=60000)


def wait_until(page: Page, expression: str, timeout_ms: float = 30000) -> None:
    """Waits until the JavaScript ``expression`` is true in the page.

    Not ``page.wait_for_function``: it re-evaluates its predicate with eval() inside the page,
    which the site's Content-Security-Policy refuses (no 'unsafe-eval'), so any wait longer
    than its first check fails with an EvalError. ``page.evaluate`` runs through the DevTools
    protocol, which the policy does not govern; this asks it again until the state is reached.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"not true after {timeout_ms:g} ms: {expression}"
        page.wait_for_timeout(50)


def click_a_move(page: Page, rng: random.Random) -> bool:
    """Clicks one of the moves this page offers, if it is this page's turn, and waits for the
    new board; True if it did."""
    buttons = page.locator("#board-form button[name=action]:not([disabled])")
    count = buttons.count()
    if count == 0 or not page.locator(".badge.turn").count():
        return False
    version = page.locator("#board-public").get_attribute("data-version") or ""
    buttons.nth(rng.randrange(count)).click()
    expect(page.locator("#board-public")).not_to_have_attribute("data-version", version)
    return True


def with_a_virtual_authenticator(page: Page) -> None:
    """A platform authenticator (the Chrome DevTools Protocol's WebAuthn domain) that holds
    passkeys and verifies its user at once."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )


def confirm_access(page: Page) -> None:
    """allauth's "Confirm Access": the password again before a change to how one signs in."""
    expect(page.locator("main h1")).to_have_text("Confirm Access")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Confirm").click()
