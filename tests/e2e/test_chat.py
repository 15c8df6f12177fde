"""The table's chat in Chromium (#27.1), three people at one table over uvicorn's websocket: two
players and a spectator write, read live, are refused with the reason where they typed, and the
creator closes the table's room to spectators; the lobby counts what waits; older lines come on
scroll."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from community.models import ChatLine, Room
from community.services.chat import chat_line_post
from tests.e2e.pages import signed_in_page, wait_until
from tests.e2e.tables import a_table, elsewhere
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def open_table(page: Page, base: str, table) -> None:
    page.goto(f"{base}/t/{table.pk}/")
    wait_until(page, "window.tableLive === true")


def say(page: Page, room: str, text: str) -> None:
    field = page.locator(f"#chat-text-{room}")
    field.fill(text)
    field.press("Enter")


def test_two_players_and_a_spectator_chat_live_in_their_rooms(asgi_server, browser):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    UserFactory(username="carol")
    table = a_table("district-noir", [alice, bob])
    pages = {name: signed_in_page(browser, asgi_server, name) for name in ("alice", "bob", "carol")}
    for page in pages.values():
        open_table(page, asgi_server, table)
    posts: list[str] = []
    pages["alice"].on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    # The players' room: the seats alone; a spectator's page has no such room at all.
    expect(pages["carol"].locator("#chat-lines-players")).to_have_count(0)
    say(pages["alice"], "players", "my plan: the left district")
    expect(pages["bob"].locator("#chat-lines-players")).to_contain_text(
        "my plan: the left district"
    )
    expect(pages["alice"].locator("#chat-lines-players .chat-line.mine")).to_contain_text("my plan")
    expect(pages["alice"].locator("#chat-text-players")).to_have_value("")
    assert posts == [], "the line went over the open socket"

    # A next line typed at once, before the first one's answer came back, stays in the field
    # (the answer empties the field only while it holds the line it answers).
    say(pages["alice"], "players", "and then the right one")
    pages["alice"].locator("#chat-text-players").fill("or not")
    expect(pages["bob"].locator("#chat-lines-players")).to_contain_text("and then the right one")
    expect(pages["alice"].locator("#chat-lines-players .chat-line.mine")).to_have_count(2)
    expect(pages["alice"].locator("#chat-text-players")).to_have_value("or not")
    pages["alice"].locator("#chat-text-players").fill("")

    # The table's room: everyone, the spectator included.
    say(pages["carol"], "table", "good luck, both of you")
    for name in ("alice", "bob"):
        expect(pages[name].locator("#chat-lines-table")).to_contain_text("good luck, both of you")

    # A fifth line within ten seconds is refused, with the reason under the field.
    for text in ("one", "two", "three", "four", "five"):
        say(pages["bob"], "table", text)
        if text != "five":
            expect(pages["alice"].locator("#chat-lines-table")).to_contain_text(text)
    expect(pages["bob"].locator("#chat-status-table")).to_contain_text("too fast")
    expect(pages["bob"].locator("#chat-text-table")).to_have_value("five")  # kept, to send later

    # The creator closes the table's room to spectators: the spectator's next line is refused,
    # and once reloaded the page says why instead of offering the field.
    pages["alice"].get_by_role("button", name="Close the table's room to spectators").click()
    expect(pages["alice"].get_by_role("button", name="Let spectators write")).to_be_visible()
    say(pages["carol"], "table", "can I still talk?")
    expect(pages["carol"].locator("#chat-status-table")).to_contain_text("closed this room")
    open_table(pages["carol"], asgi_server, table)
    expect(pages["carol"].locator(".chat-room[data-room=table] .chat-why-not")).to_contain_text(
        "closed this room"
    )
    expect(pages["carol"].locator("#chat-text-table")).to_have_count(0)
    expect(pages["carol"].locator("#chat-lines-table")).to_contain_text("good luck")  # still read
    assert not ChatLine.objects.filter(text="can I still talk?").exists()
    assert "my plan" not in pages["carol"].content()


def test_the_lobby_counts_the_lines_that_wait_and_the_page_marks_them_read(asgi_server, browser):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = a_table("district-noir", [alice, bob])
    page = signed_in_page(browser, asgi_server, "alice")
    elsewhere(chat_line_post, table_id=table.pk, user=bob, room="players", text="your move?")
    elsewhere(chat_line_post, table_id=table.pk, user=bob, room="table", text="hello all")

    page.goto(f"{asgi_server}/")
    row = page.locator(f".table-row:has(a[href='/t/{table.pk}/'])")
    expect(row.locator(".chat-unread")).to_have_text("2 new chat lines")
    row.locator("a.table-link").click()
    expect(page.locator("#chat-lines-players")).to_contain_text("your move?")
    page.goto(f"{asgi_server}/")
    expect(page.locator(".table-row .chat-unread")).to_have_count(0)


def test_older_lines_come_when_the_log_is_scrolled_to_its_top(asgi_server, browser):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = a_table("district-noir", [alice, bob])
    ChatLine.objects.bulk_create(
        ChatLine(table=table, room=Room.TABLE, author=bob, text=f"old line {n}") for n in range(120)
    )
    page = signed_in_page(browser, asgi_server, "alice")
    open_table(page, asgi_server, table)
    lines = page.locator("#chat-lines-table .chat-line")
    expect(lines).to_have_count(50)
    expect(lines.last).to_contain_text("old line 119")
    log = page.locator(".chat-room[data-room=table] .chat-scroll")
    log.scroll_into_view_if_needed()  # the chat is under the board
    expect(log).to_be_in_viewport()
    log.evaluate("el => { el.scrollTop = 0; }")
    expect(lines).to_have_count(100)
    expect(lines.nth(50)).to_be_in_viewport()  # the lines read before stay where they were
    log.evaluate("el => { el.scrollTop = 0; }")
    expect(lines).to_have_count(120)
    expect(lines.first).to_contain_text("old line 0")
    expect(page.locator("#chat-lines-table .chat-more")).to_have_count(0)


def test_without_the_socket_a_line_is_posted_and_new_ones_come_by_the_poll(
    live_server, browser, fast_polling
):
    """Django's live server has no websocket: the page posts over HTTP and polls its rooms."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = a_table("district-noir", [alice, bob])
    page = signed_in_page(browser, live_server.url, "alice")
    page.goto(f"{live_server.url}/t/{table.pk}/")
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)

    say(page, "players", "anyone there?")
    expect(page.locator("#chat-lines-players")).to_contain_text("anyone there?")
    expect(page.locator("#chat-text-players")).to_have_value("")
    assert any(url.endswith(f"/t/{table.pk}/chat/") for url in posts)
    expect(page.locator("#chat-lines-players .chat-line")).to_have_count(1)  # not twice

    elsewhere(chat_line_post, table_id=table.pk, user=bob, room="players", text="yes, me")
    expect(page.locator("#chat-lines-players")).to_contain_text("yes, me")
    expect(page.locator("#chat-lines-players .chat-line")).to_have_count(2)

    say(page, "players", "x" * 10)
    expect(page.locator("#chat-lines-players .chat-line")).to_have_count(3)
    say(page, "players", "x" * 10)
    expect(page.locator("#chat-status-players")).to_contain_text("just written that")
    expect(page.locator("#chat-text-players")).to_have_value("x" * 10)  # kept, to change
