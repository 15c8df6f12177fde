"""Clocks count down on an open page, in the browser, from the deadline the server wrote, and
say when the time is up; on the table and in the lobby, in the viewer's language."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Seat
from games.services.tables import table_create, table_join
from tests.conftest import forget_boards
from tests.e2e.pages import sign_in
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


# Seconds left when the page is asked for: enough for a page of a busy machine to arrive first.
LEFT = 12


@pytest.fixture
def nearly_out_of_time():
    """A District Noir table whose waiting seat will have ``LEFT`` seconds left: call
    ``run_down()`` just before the page is opened (signing in takes its own time)."""
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    seat = Seat.objects.get(table=table, is_waiting=True)

    def run_down() -> None:
        deadline = timezone.now() + dt.timedelta(seconds=LEFT)
        Seat.objects.filter(pk=seat.pk).update(deadline=deadline)
        forget_boards()  # the board drawn before the deadline moved

    return table, seat.user, run_down


@pytest.mark.parametrize("where", ["table", "lobby"])
def test_a_clock_counts_down_to_time_is_up(live_server, browser, nearly_out_of_time, where):
    table, waiting, run_down = nearly_out_of_time
    page = browser.new_context().new_page()
    sign_in(page, live_server.url, "alice" if waiting.username == "bob" else "bob")
    run_down()
    page.goto(f"{live_server.url}/t/{table.pk}/" if where == "table" else f"{live_server.url}/")
    clock = page.locator(".clock time[data-deadline]").first
    expect(clock).to_have_text(re.compile(r"^([1-9]|1[0-2]) seconds? left$"))
    first = clock.text_content()
    expect(clock).not_to_have_text(first)  # it moves on its own, with no request
    expect(clock).to_have_attribute("title", re.compile(r"^Move by "))
    expect(clock).to_have_text("Time is up", timeout=(LEFT + 10) * 1000)
    expect(page.locator(".clock.up")).to_have_count(1)


def test_a_clock_speaks_the_pages_language(live_server, browser, nearly_out_of_time):
    table, _waiting, run_down = nearly_out_of_time
    UserFactory(username="dana", language="cs")
    page = browser.new_context().new_page()
    sign_in(page, live_server.url, "dana")
    run_down()
    page.goto(f"{live_server.url}/t/{table.pk}/")
    expect(page.locator(".clock time[data-deadline]")).to_have_text(re.compile(r"sekund"))
