"""What several browser tests do the same way."""

from __future__ import annotations

from playwright.sync_api import Page, expect

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's


def sign_in(page: Page, base: str, username: str) -> None:
    """Signs in through the sign-in form, as a player would, and waits for the header."""
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    expect(page.locator(".site-header")).to_contain_text(username)
