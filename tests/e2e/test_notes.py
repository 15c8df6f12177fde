"""The bell in Chromium (#27.5), three people: bob follows alice and carol challenges her while
she looks at the lobby; her bell counts each live, her notifications page lists them, and the
challenge's note takes her to accept it; at the new table (its own socket) the bell still rings,
and carol's bell tells her that her challenge was accepted."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Page, expect

from accounts.models import User
from community.models import Challenge, Notification
from tests.e2e.pages import signed_in_page
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def bell_count(page: Page):
    return page.locator("#bell .bell-count")


def bell_shows_unread(
    page: Page, username: str, since_note_from: str, timeout_s: float = 15
) -> None:
    """Waits until the player has a note from ``since_note_from`` and the page's bell shows
    their unread notes as the database counts them now (both may still move while a note of
    the game arrives)."""
    deadline = time.monotonic() + timeout_s
    while True:
        noted = Notification.objects.filter(
            user__username=username, actor__username=since_note_from
        ).exists()
        unread = User.objects.get(username=username).notes_unread
        count = bell_count(page)
        shown = int(count.text_content() or "0") if count.count() else 0
        if noted and shown == unread:
            return
        assert time.monotonic() < deadline, f"the bell shows {shown}, {unread} unread"
        page.wait_for_timeout(100)


def test_the_bell_counts_live_and_leads_to_what_happened(asgi_server, browser):
    for name in ("alice", "bob", "carol", "dave"):
        UserFactory(username=name)
    base = asgi_server
    alice, bob, carol, dave = (
        signed_in_page(browser, base, name) for name in ("alice", "bob", "carol", "dave")
    )
    alice.goto(f"{base}/")
    expect(alice.locator("#bell")).to_be_visible()
    expect(bell_count(alice)).to_have_count(0)

    bob.goto(f"{base}/players/alice/")
    bob.get_by_role("button", name="Follow", exact=True).click()
    expect(bell_count(alice)).to_have_text("1")
    expect(alice.locator("#bell-news")).to_have_text("New notification: a new follower")

    carol.goto(f"{base}/players/alice/challenge/?game=district-noir")
    carol.locator("form:has(input[name=game][value=district-noir])").get_by_role(
        "button", name="Send the challenge"
    ).click()
    expect(carol.locator("#messages")).to_contain_text("Your challenge is sent.")
    expect(bell_count(alice)).to_have_text("2")
    expect(bell_count(bob)).to_have_count(0)  # nothing of alice's reaches bob's page

    alice.locator("#bell").click()
    expect(alice).to_have_url(f"{base}/notifications/")
    notes = alice.locator(".note-list")
    expect(notes.locator(".note.unread")).to_have_count(2)
    expect(notes).to_contain_text("bob follows you now")
    notes.get_by_role("link", name="carol challenges you to District Noir").click()
    expect(alice).to_have_url(f"{base}/challenges/")
    expect(bell_count(alice)).to_have_text("1")  # the challenge's note is read
    carol.goto(f"{base}/challenges/")
    alice.locator(".challenge").first.get_by_role("button", name="Accept").click()
    table = Challenge.objects.get().table
    expect(alice).to_have_url(f"{base}/t/{table.pk}/")
    expect(alice.locator("#board")).to_be_visible()
    expect(bell_count(carol)).to_be_visible()  # accepted, and her turn or the game's news
    carol.locator("#bell").click()
    expect(carol.locator(".note-list")).to_contain_text(
        "alice accepted your challenge to District Noir"
    )

    # At the table the page's own socket carries the bell. Its count is alice's unread notes,
    # dave's follow among them (a note of the game, her turn, may come before or after it: the
    # count read before the follow is no fixed point).
    dave.goto(f"{base}/players/alice/")
    dave.get_by_role("button", name="Follow", exact=True).click()
    bell_shows_unread(alice, "alice", since_note_from="dave")
    for page in (alice, bob, carol, dave):
        page.context.close()
