"""Follows and blocks in Chromium (#27.2), three people over uvicorn's websocket: a follow in one
click from a profile and back makes friends, listed with who is online; a block from the
profile hides the blocked player's next line from the blocker's open table page (and from no one
else's), and refuses the blocked player a seat at the blocker's table, which their lobby no
longer lists."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games.services.tables import table_create
from tests.e2e.pages import signed_in_page, wait_until
from tests.e2e.tables import a_table, elsewhere
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def open_table(page: Page, base: str, table) -> None:
    page.goto(f"{base}/t/{table.pk}/")
    wait_until(page, "window.tableLive === true")


def say(page: Page, text: str) -> None:
    field = page.locator("#chat-text-table")
    field.fill(text)
    field.press("Enter")


def test_a_follow_back_makes_friends_who_see_each_other_online(asgi_server, browser):
    UserFactory(username="alice"), UserFactory(username="carol")
    alice = signed_in_page(browser, asgi_server, "alice")
    carol = signed_in_page(browser, asgi_server, "carol")

    carol.goto(f"{asgi_server}/players/alice/")
    carol.get_by_role("button", name="Follow", exact=True).click()
    expect(carol.locator(".relation-message")).to_have_text("You follow alice.")
    expect(carol.get_by_role("button", name="Stop following")).to_be_visible()

    alice.goto(f"{asgi_server}/players/carol/")
    expect(alice.locator(".relation .badge")).to_have_text("Follows you")
    alice.get_by_role("button", name="Follow", exact=True).click()
    expect(alice.locator(".relation .badge.friend")).to_have_text("Friends")

    alice.get_by_role("banner").get_by_role("link", name="alice").click()  # her own profile
    alice.get_by_role("link", name="Friends and follows").click()
    friends = alice.locator("section[aria-labelledby=friends-title] li")
    expect(friends).to_have_count(1)
    expect(friends).to_contain_text("carol")
    expect(friends).to_contain_text("online now")  # carol's page was open a moment ago


def test_a_block_hides_the_next_line_refuses_a_seat_and_empties_the_lobby(asgi_server, browser):
    alice_user, bob_user = UserFactory(username="alice"), UserFactory(username="bob")
    UserFactory(username="carol")
    table = a_table("district-noir", [alice_user, bob_user])
    pages = {name: signed_in_page(browser, asgi_server, name) for name in ("alice", "bob", "carol")}
    for page in pages.values():
        open_table(page, asgi_server, table)
    say(pages["bob"], "a line before the block")
    for name in ("alice", "carol"):
        expect(pages[name].locator("#chat-lines-table")).to_contain_text("before the block")

    # Alice blocks bob from his profile, in a tab of her own: her table page stays open.
    profile = pages["alice"].context.new_page()
    profile.goto(f"{asgi_server}/players/bob/")
    profile.get_by_text("Block or report").click()
    profile.get_by_role("button", name="Block", exact=True).click()
    expect(profile.locator(".relation-message")).to_have_text("bob is blocked.")
    expect(profile.get_by_role("button", name="Unblock")).to_be_visible()

    say(pages["bob"], "a line after the block")
    expect(pages["carol"].locator("#chat-lines-table")).to_contain_text("after the block")
    say(pages["carol"], "carol's answer")  # the same room's group, so after bob's line
    expect(pages["alice"].locator("#chat-lines-table")).to_contain_text("carol's answer")
    expect(pages["alice"].locator("#chat-lines-table")).not_to_contain_text("after the block")
    open_table(pages["alice"], asgi_server, table)  # nor on the page loaded again
    expect(pages["alice"].locator("#chat-lines-table")).to_contain_text("carol's answer")
    expect(pages["alice"].locator("#chat-lines-table")).not_to_contain_text("before the block")

    # Alice opens a table: bob's lobby does not list it, and its page refuses him a seat.
    waiting = elsewhere(
        table_create, user=alice_user, game="slide", num_seats=3, seconds_per_move=86400
    )
    bob = pages["bob"]
    bob.goto(f"{asgi_server}/")
    expect(bob.get_by_role("heading", name="Open tables")).to_be_visible()
    expect(bob.locator(f"a[href='/t/{waiting.pk}/']")).to_have_count(0)
    pages["carol"].goto(f"{asgi_server}/")
    expect(pages["carol"].locator(f"a[href='/t/{waiting.pk}/']").first).to_be_visible()
    bob.goto(f"{asgi_server}/t/{waiting.pk}/")
    bob.get_by_role("button", name="Take a seat").click()
    expect(bob.locator("#board-message")).to_contain_text("This table is not open to you.")
    assert not waiting.seats.filter(user=bob_user).exists()
