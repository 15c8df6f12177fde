"""A player makes a token on the API settings page, a program uses it, and the player revokes
it (issue #30.1): in a real Chromium, against the live server."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e.pages import signed_in_page
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_token_made_on_the_page_works_until_it_is_revoked(live_server, browser):
    UserFactory(username="anna")
    page = signed_in_page(browser, live_server.url, "anna")
    page.goto(live_server.url + "/profile/")
    page.get_by_role("link", name="API and bots").click()
    page.get_by_label("Name").fill("my notifier")
    page.get_by_label("play: make moves at your tables").check()
    page.get_by_role("button", name="Make the token").click()
    secret = page.get_by_label("Your token").input_value()
    assert secret.startswith("ctp_")
    headers = {"Authorization": f"Bearer {secret}"}
    account = httpx.get(live_server.url + "/api/account", headers=headers)
    assert account.status_code == 200
    assert account.json()["scopes"] == ["read", "play"]

    page.reload()
    assert page.get_by_label("Your token").count() == 0, "shown only once"
    row = page.locator("tr", has_text="my notifier")
    row.get_by_role("button", name="Revoke").click()
    page.get_by_text("The token is revoked").wait_for()
    assert page.locator("tr", has_text="my notifier").count() == 0
    refused = httpx.get(live_server.url + "/api/account", headers=headers)
    assert refused.status_code == 401
    assert refused.json()["error"]
    page.context.close()
