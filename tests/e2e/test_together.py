"""Players together from the first word to the rematch, in Chromium (#27.8), three people over
uvicorn's websockets: alice challenges bob from his profile and his bell rings live; he follows
it to the challenge and accepts; her bell tells her, and its note takes her to the table; carol
watches. They chat (the spectator in the table's room, the players in theirs, which never
reaches carol's page), bob's "@alice" rings her bell while she plays; they play moves by clicking;
at the end alice offers a rematch, bob's bell and page learn of it at once, he accepts and both
sit at the new game."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Page, expect

from community.models import Challenge
from games.models import Table
from tests.e2e.pages import click_a_move, every_page_catches_up, signed_in_page, wait_until
from tests.e2e.tables import elsewhere
from tests.factories import UserFactory
from tests.games.rated_games import play_to_the_end

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
COUNT = re.compile(r"^\d+$")


def bell_count(page: Page):
    return page.locator("#bell .bell-count")


def bell_says(page: Page, what: str) -> None:
    expect(page.locator("#bell-news")).to_have_text(f"New notification: {what}")
    expect(bell_count(page)).to_have_text(COUNT)


def say(page: Page, room: str, text: str) -> None:
    field = page.locator(f"#chat-text-{room}")
    field.fill(text)
    field.press("Enter")


def test_three_people_chat_challenge_play_and_rematch_with_the_bell(asgi_server, browser):
    for name in ("alice", "bob", "carol"):
        UserFactory(username=name)
    base = asgi_server
    alice, bob, carol = (signed_in_page(browser, base, name) for name in ("alice", "bob", "carol"))
    bob.goto(f"{base}/")
    expect(bell_count(bob)).to_have_count(0)

    # The challenge, from bob's profile; his bell rings on the lobby he is reading.
    alice.goto(f"{base}/players/bob/")
    alice.get_by_role("link", name="Challenge", exact=True).click()
    alice.locator("summary", has_text="District Noir").click()
    alice.locator("form:has(input[name=game][value=district-noir])").get_by_role(
        "button", name="Send the challenge"
    ).click()
    expect(alice.locator("#messages")).to_contain_text("Your challenge is sent.")
    bell_says(bob, "a challenge to you")
    expect(bell_count(bob)).to_have_text("1")

    bob.locator("#bell").click()
    bob.locator(".note-list").get_by_role(
        "link", name="alice challenges you to District Noir"
    ).click()
    expect(bob).to_have_url(f"{base}/challenges/")
    bob.locator(".challenge").first.get_by_role("button", name="Accept").click()
    table = Challenge.objects.get().table
    assert table is not None and table.is_running
    expect(bob).to_have_url(f"{base}/t/{table.pk}/")

    # Her bell rings (the acceptance, and her turn if the first move is hers); the acceptance's
    # note takes her to the table.
    expect(bell_count(alice)).to_have_text(COUNT)
    alice.locator("#bell").click()
    alice.locator(".note-list").get_by_role(
        "link", name="bob accepted your challenge to District Noir"
    ).click()
    expect(alice).to_have_url(f"{base}/t/{table.pk}/")
    carol.goto(f"{base}/t/{table.pk}/")
    pages = [alice, bob, carol]
    for page in pages:
        wait_until(page, "window.tableLive === true")

    # The chat: the spectator in the table's room, read by both; the players' room for them alone.
    say(carol, "table", "good luck, both of you")
    for page in (alice, bob):
        expect(page.locator("#chat-lines-table")).to_contain_text("good luck, both of you")
    expect(carol.locator("#chat-lines-players")).to_have_count(0)
    say(bob, "players", "@alice your move, take your time")
    expect(alice.locator("#chat-lines-players")).to_contain_text("@alice your move")
    bell_says(alice, "your name in a chat")
    say(alice, "players", "thanks, thinking")
    expect(bob.locator("#chat-lines-players")).to_contain_text("thanks, thinking")

    # They play by clicking, each page following the other's moves live.
    rng = random.Random(7)
    moves = 0
    while moves < 4:
        every_page_catches_up(pages, table)
        played = click_a_move(alice, rng) or click_a_move(bob, rng)
        assert played, "neither page offered a move at a running table"
        moves += 1
    every_page_catches_up(pages, table)
    assert "your move, take your time" not in carol.content()
    assert "thanks, thinking" not in carol.content()

    # The rest of the game, then the rematch: alice offers, bob's page and bell learn of it.
    elsewhere(play_to_the_end, Table.objects.get(pk=table.pk))
    for page in pages:
        expect(page.locator("#game-end-title")).to_be_visible()
    alice.get_by_role("button", name="Rematch").click()
    alice.wait_for_url(lambda url: url != f"{base}/t/{table.pk}/")
    new = Table.objects.get(pk=table.pk).next_table
    assert new is not None
    bell_says(bob, "a rematch offered")
    expect(bob.locator(".next-steps")).to_contain_text("alice offers a rematch")
    expect(carol.get_by_role("button", name="Accept the rematch")).to_have_count(0)
    bob.get_by_role("button", name="Accept the rematch").click()
    bob.wait_for_url(f"{base}/t/{new.pk}/")
    new.refresh_from_db()
    assert new.is_running
    assert sorted(new.seats.values_list("user__username", flat=True)) == ["alice", "bob"]
    for page in (alice, bob):
        expect(page.locator(".dn-me")).to_be_visible()
        expect(page.locator("#board-public")).to_have_attribute("data-version", str(new.version))
    for page in pages:
        page.context.close()
