"""A tournament as two players live it, in real browsers (#29.7): each signs up on its page;
at its start the sweep pairs them and seats their table; one finds the game from the
tournament's page and plays their move on the board, the game ends, and the other's
tournament page, open all along, shows the standings move and the next round begin without a
reload."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from games.live import broadcast
from games.models import Table
from tests.conftest import play_random_moves
from tests.e2e.pages import click_a_move, signed_in_page
from tests.e2e.tables import played_until_turn_of
from tests.factories import UserFactory
from tournaments import views
from tournaments.models import Format, Tournament
from tournaments.services.entries import TournamentSettings, tournament_create
from tournaments.services.rounds import sweep_tournaments

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_two_players_sign_up_play_a_round_and_see_the_standings_move(
    live_server, browser, monkeypatch
):
    # The test's thread runs Playwright's loop, where the table's broadcast cannot run; the
    # pages here poll.
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    monkeypatch.setattr(views, "POLL_SECONDS", 1)
    creator, anna, _ben = (UserFactory(username=name) for name in ("carla", "anna", "ben"))
    start = timezone.now() + dt.timedelta(hours=1)
    tournament = tournament_create(
        user=creator,
        chosen=TournamentSettings(
            name="Winter Cup",
            game="district-noir",
            format=Format.SWISS,
            table_size=2,
            seconds_per_move=86400,
            starts_at=start,
            min_players=2,
            max_players=8,
            rounds=2,
        ),
    )
    url = live_server.url + reverse("tournament_page", args=[tournament.pk])
    pages = {name: signed_in_page(browser, live_server.url, name) for name in ("anna", "ben")}
    for name, page in pages.items():
        page.goto(url)
        page.get_by_role("button", name="Enter").click()
        expect(page.locator("#messages")).to_contain_text("You are in.")
        expect(page.locator(".tournament-page")).to_contain_text(name)
        expect(page.get_by_role("button", name="Leave")).to_be_visible()
    assert tournament.entries.count() == 2

    sweep_tournaments(now=start)  # beat's sweep, at the start
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    table = Table.objects.get(tournament_pairing__round__tournament=tournament)

    anna_page, ben_page = pages["anna"], pages["ben"]
    for page in pages.values():
        page.reload()
        expect(page.locator("#tournament-live")).to_contain_text("Round 1")
    live = ben_page.locator("#tournament-live")
    version = live.get_attribute("data-version")
    anna_page.locator(
        f'#tournament-live a[href="{reverse("table_detail", args=[table.pk])}"]'
    ).click()
    anna_page.wait_for_url(f"**/t/{table.pk}/")
    expect(anna_page.get_by_role("link", name="Winter Cup: round 1")).to_be_visible()

    rng = random.Random(7)
    table = played_until_turn_of(table, anna, rng, None)
    assert table is not None, "the game ended before anna's turn"
    anna_page.reload()
    assert click_a_move(anna_page, rng), "anna's board offered no move"
    table = play_random_moves(table, 2000, rng)
    assert table.status == Table.Status.FINISHED
    ranks = table.outcome["ranks"]
    seated = {s.position: s.user.username for s in table.seats.select_related("user")}
    winners = [seated[p] for p, rank in enumerate(ranks) if rank == 0]

    # Ben's page, open all along: the new standings and round two come in by its poll.
    expect(live).not_to_have_attribute("data-version", version or "", timeout=15000)
    expect(live).to_contain_text("Round 2")
    standings = live.locator(".tournament-standings tbody tr")
    expect(standings).to_have_count(2)
    first = standings.first
    if len(winners) == 1:
        expect(first.locator(".name")).to_contain_text(winners[0])
        expect(first.locator(".num").first).to_have_text("1")
    else:
        expect(first.locator(".num").first).to_have_text("0.5")
    replay = reverse("table_replay", args=[table.pk])
    expect(live.locator(f'a[href="{replay}"]')).to_be_visible()
    for page in pages.values():
        page.context.close()
