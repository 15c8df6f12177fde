"""Challenges in Chromium (#27.3), three people: alice challenges bob from his profile to a game
of Slide with carol invited too; bob accepts, carol first declines a challenge with a reason
(which alice then reads), then accepts a second, and the table starts with everyone seated; bob,
who lets only friends challenge him, refuses a stranger with the reason said on the page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from accounts.models import ChallengesFrom, Follow
from community.models import Challenge
from tests.e2e.pages import signed_in_page
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def challenge_to_slide(page: Page, base: str, receiver: str, others: str) -> None:
    page.goto(f"{base}/players/{receiver}/")
    page.get_by_role("link", name="Challenge", exact=True).click()
    page.locator("summary", has_text="Slide").click()
    game = page.locator("form:has(input[name=game][value=slide])")
    game.get_by_label("Players").select_option("3")
    game.get_by_label("Also invite").fill(others)
    game.get_by_role("button", name="Send the challenge").click()
    expect(page.locator("#messages")).to_contain_text("Your challenge is sent.")


def test_a_challenge_to_three_declined_then_accepted_by_all(live_server, browser):
    for name in ("alice", "bob", "carol"):
        UserFactory(username=name)
    base = live_server.url
    pages = {name: signed_in_page(browser, base, name) for name in ("alice", "bob", "carol")}

    challenge_to_slide(pages["alice"], base, "bob", "carol")
    carol = pages["carol"]
    carol.goto(f"{base}/challenges/")
    first = carol.locator(".challenge").first
    expect(first).to_contain_text("alice")
    first.get_by_label("Reason").select_option(label="I would rather play another game")
    first.get_by_role("button", name="Decline").click()
    expect(carol.locator("#messages")).to_contain_text("Declined.")
    pages["alice"].goto(f"{base}/challenges/")
    expect(pages["alice"].locator("section[aria-labelledby=recent-title]")).to_contain_text(
        "I would rather play another game"
    )

    challenge_to_slide(pages["alice"], base, "bob", "carol")
    for name in ("bob", "carol"):
        page = pages[name]
        page.goto(f"{base}/challenges/")
        page.locator(".challenge").first.get_by_role("button", name="Accept").click()
    expect(carol).to_have_url(f"{base}/t/{Challenge.objects.latest('pk').table_id}/")
    expect(carol.locator("#board")).to_be_visible()
    pages["bob"].goto(f"{base}/challenges/")
    expect(pages["bob"].get_by_role("link", name="Go to the table").first).to_be_visible()
    table = Challenge.objects.latest("pk").table
    assert table.is_running
    assert sorted(table.seats.values_list("user__username", flat=True)) == ["alice", "bob", "carol"]


def test_a_player_who_takes_friends_only_is_not_offered_the_form(live_server, browser):
    bob, dave = UserFactory(username="bob"), UserFactory(username="dave")
    bob.challenges_from = ChallengesFrom.FRIENDS
    bob.save()
    page = signed_in_page(browser, live_server.url, "dave")
    page.goto(f"{live_server.url}/players/bob/challenge/")
    expect(page.get_by_role("alert")).to_have_text("bob takes challenges from friends only.")
    expect(page.locator("summary", has_text="Slide")).to_have_count(0)
    Follow.objects.bulk_create(
        [Follow(follower=bob, followed=dave), Follow(follower=dave, followed=bob)]
    )
    page.reload()
    expect(page.locator("summary", has_text="Slide")).to_be_visible()
    expect(page.get_by_role("alert")).to_have_count(0)
