"""A player's data in Chromium (#28.4): from their settings they download it (after "Confirm
Access") and close their account; the other player at their running table then sees a former
player and a bot in that seat, and "deleted" for their chat line. axe-core on the new pages."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games.live import broadcast
from games.models import Seat, Table
from games.services.tables import table_create, table_join
from tests.e2e.axe import check_page
from tests.e2e.pages import confirm_access, signed_in_page
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_player_downloads_their_data_then_closes_their_account(live_server, browser, monkeypatch):
    # This thread runs the browser's event loop, where the setup's broadcast could not run.
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    quillon, bob = UserFactory(username="quillon"), UserFactory(username="bob")
    table = table_create(user=bob, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=quillon)
    base, found = live_server.url, []
    page = signed_in_page(browser, base, "quillon")
    page.goto(f"{base}{reverse('table_detail', args=[table.pk])}")
    page.locator("#chat-text-table").fill("have fun, bob")
    page.locator("#chat-text-table").press("Enter")
    expect(page.locator(".chat-line.mine")).to_contain_text("have fun, bob")
    page.goto(f"{base}{reverse('profile_edit')}")
    page.get_by_role("link", name="Your data: download it, or close your account").click()
    expect(page.locator("main h1")).to_have_text("Your data")
    found += check_page(page, "your data")

    page.get_by_role("link", name="Download my data").click()
    with page.expect_download() as download:
        confirm_access(page)
    data = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert data["account"]["username"] == "quillon"
    assert [t["table"] for t in data["games"]["tables"]] == [table.pk]
    assert [line["text"] for line in data["community"]["chat_lines"]] == ["have fun, bob"]

    page.goto(f"{base}{reverse('account_data')}")
    page.get_by_label("I understand: my account closes for good").check()
    page.get_by_role("button", name="Close my account").click()
    expect(page.locator("main h1")).to_have_text("Your account is closed")
    expect(page.get_by_role("link", name="Sign in")).to_be_visible()
    found += check_page(page, "account closed")

    other = signed_in_page(browser, base, "bob")
    other.goto(f"{base}{reverse('table_detail', args=[table.pk])}")
    expect(other.locator(".seats")).to_contain_text("a former player (bot)")
    expect(other.locator(".chat-line", has_text="a former player")).to_contain_text("deleted")
    assert "quillon" not in other.content()
    assert Seat.objects.get(table=table, user=quillon).replaced_by_bot
    assert Table.objects.get(pk=table.pk).is_running
    assert not found, "\n".join(found)


def test_the_e_mail_page_with_a_change_waiting_for_its_confirmation(live_server, browser):
    """A new address typed in: the page says which one is used until the new one is confirmed,
    and nothing on it fails axe-core."""
    UserFactory(username="erin", email="erin@example.com")
    base = live_server.url
    page = signed_in_page(browser, base, "erin")
    page.goto(f"{base}{reverse('account_email')}")
    found = check_page(page, "e-mail addresses")
    page.get_by_label("Change to:").fill("erin.new@example.com")
    page.get_by_role("button", name="Change Email").click()
    expect(page.locator("#messages")).to_contain_text("erin.new@example.com")
    expect(page.get_by_label("Current email:")).to_have_value("erin@example.com")
    found += check_page(page, "e-mail addresses, a change waiting")
    assert not found, "\n".join(found)
