"""A running tournament's page in a real browser (#29.2, #29.4): its standings and rounds come
in by htmx's poll once a game ended, not while the tab is hidden and at once when it shows
again; and "I'm ready", reached with the keyboard in a part the poll swapped in (no CSRF token
in it: htmx sends the page's in a header), gets its answer."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db.models import F
from django.urls import reverse
from playwright.sync_api import expect

from games.live import broadcast
from tests.e2e.pages import signed_in_page
from tests.factories import UserFactory
from tests.support.tournament_pages import game_finish, running_tables, tournament_started
from tournaments.models import Format, Pairing, PairingSeat, Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

POLL = "htmx.trigger('#tournament-live', 'tournament-poll')"
ON_ITS_WAY = "document.getElementById('tournament-live').classList.contains('htmx-request')"


def test_the_standings_come_in_as_games_end_while_the_tab_shows(live_server, browser, monkeypatch):
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    players = [UserFactory() for _ in range(4)]
    tournament = tournament_started(creator=players[0], players=players)
    page = browser.new_context().new_page()
    polls: list[str] = []
    page.on("request", lambda r: polls.append(r.url) if "?v=" in r.url else None)
    page.goto(live_server.url + reverse("tournament_page", args=[tournament.pk]))
    live = page.locator("#tournament-live")
    expect(live).to_have_attribute("data-version", str(tournament.version))
    table = running_tables(tournament)[0]
    game_finish(table, random.Random(1))
    tournament.refresh_from_db()
    # Hidden: no poll goes out (htmx marks a request on its way at once).
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => true})"
    )
    assert page.evaluate(f"() => {{ {POLL}; return {ON_ITS_WAY}; }}") is False
    # Shown again: at once.
    page.evaluate(
        "Object.defineProperty(document, 'hidden', {configurable: true, get: () => false});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    expect(live).to_have_attribute("data-version", str(tournament.version))
    expect(live.locator(f'a[href="{reverse("table_replay", args=[table.pk])}"]')).to_be_visible()
    assert len(polls) == 1, polls
    page.context.close()


def test_im_ready_works_from_the_keyboard_in_a_swapped_in_part(live_server, browser, monkeypatch):
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    players = [UserFactory() for _ in range(4)]
    tournament = tournament_started(
        creator=players[0],
        players=players,
        format=Format.SWISS_WINDOWS,
        round_window=dt.timedelta(days=2),
        start_within=dt.timedelta(days=1),
    )
    me = players[1]
    page = signed_in_page(browser, live_server.url, me.username)
    page.goto(live_server.url + reverse("tournament_page", args=[tournament.pk]))
    Tournament.objects.filter(pk=tournament.pk).update(version=F("version") + 1)
    page.evaluate(POLL)
    live = page.locator("#tournament-live")
    expect(live).to_have_attribute("data-version", str(tournament.version + 1))
    assert live.locator("input[name=csrfmiddlewaretoken]").count() == 0
    button = live.get_by_role("button", name="I'm ready")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#messages")).to_contain_text("You are ready")
    pairing = Pairing.objects.get(round__tournament=tournament, seats__entry__user=me)
    assert PairingSeat.objects.get(pairing=pairing, entry__user=me).ready_at is not None
    expect(page.get_by_role("button", name="I'm ready")).to_have_count(0)
    page.context.close()
