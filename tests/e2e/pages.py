"""What several browser tests do the same way."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from games.models import Table

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


def sign_in(page: Page, base: str, username: str) -> None:
    """Signs in through the sign-in form, as a player would, and waits for the header."""
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    expect(page.locator(".site-header")).to_contain_text(username)


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
