"""The player's deadlines in their calendar (issue #30, point 3; #29, point 6): a secret address
serving an ICS feed (games/views/calendar.py), parsed here with icalendar."""

from __future__ import annotations

import datetime as dt
import re

import icalendar
import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.calendar import calendar_token_make, calendar_token_revoke
from accounts.models import User
from games.models import Table
from games.selectors.calendar import site_host
from games.services.tables import table_create, table_join
from tests.conftest import client_for, play_a_legal_move, user_at
from tournaments.models import Round
from tournaments.services.entries import TournamentSettings, tournament_create, tournament_join
from tournaments.services.rounds import sweep_tournaments

pytestmark = pytest.mark.django_db


def feed_path(token: str) -> str:
    return reverse("calendar_feed", args=[token])


def fetch(token: str, **headers: str) -> tuple[int, icalendar.Calendar | None, object]:
    """The feed as a calendar app gets it: a fresh client, no cookie."""
    response = Client().get(feed_path(token), headers=headers)
    if response.status_code != 200:
        return response.status_code, None, response
    return 200, icalendar.Calendar.from_ical(response.content), response


def events(calendar: icalendar.Calendar) -> dict[str, icalendar.Event]:
    return {str(event["UID"]): event for event in calendar.walk("VEVENT")}


def waiting_tables(user: User, others: list[User]) -> list[Table]:
    """One District Noir table per other player, started, where ``user`` moves first."""
    tables = []
    for other in others:
        table = table_create(user=user, game="district-noir", num_seats=2, seconds_per_move=86400)
        table_join(table_id=table.pk, user=other)
        tables.append(table)
    return tables


def mover_of(table: Table) -> User:
    table.refresh_from_db()
    return user_at(table, table.seats.get(is_waiting=True).position)


def test_one_event_per_waiting_table_with_its_uid_link_deadline_and_an_alarm(running_table):
    mover = mover_of(running_table)
    token = calendar_token_make(user=mover)
    status, calendar, response = fetch(token)
    assert status == 200 and calendar is not None
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert str(calendar["VERSION"]) == "2.0" and "PRODID" in calendar
    assert "X-WR-CALNAME" in calendar and "REFRESH-INTERVAL" in calendar
    found = events(calendar)
    assert list(found) == [f"table-{running_table.pk}@{site_host()}"]
    (event,) = found.values()
    seat = running_table.seats.get(user=mover)
    assert event.decoded("DTSTART") == seat.deadline.replace(microsecond=0)
    assert str(event["URL"]).endswith(reverse("table_detail", args=[running_table.pk]))
    assert str(event["SUMMARY"]) == f"Your move: District Noir #{running_table.pk}"
    (alarm,) = event.walk("VALARM")
    assert str(alarm["ACTION"]) == "DISPLAY"
    assert alarm.decoded("TRIGGER") == -dt.timedelta(hours=1)


def test_the_event_is_gone_once_the_player_moved_and_the_other_never_sees_it(running_table):
    mover = mover_of(running_table)
    other = next(s.user for s in running_table.seats.all() if s.user != mover)
    mover_token, other_token = calendar_token_make(user=mover), calendar_token_make(user=other)
    assert len(events(fetch(mover_token)[1])) == 1
    assert events(fetch(other_token)[1]) == {}  # not their turn, and not their table's event
    play_a_legal_move(running_table)
    if mover_of(running_table) != mover:
        assert events(fetch(mover_token)[1]) == {}
        (uid,) = events(fetch(other_token)[1])
        assert uid.startswith(f"table-{running_table.pk}@")


def test_another_players_tables_never_appear(make_user):
    alice, bob, carol = make_user(), make_user(), make_user()
    waiting_tables(bob, [carol])  # bob and carol's table: never alice's feed
    token = calendar_token_make(user=alice)
    assert events(fetch(token)[1]) == {}


def test_the_feed_is_in_the_players_language(running_table):
    mover = mover_of(running_table)
    mover.language = "cs"
    mover.save(update_fields=["language"])
    (event,) = events(fetch(calendar_token_make(user=mover))[1]).values()
    assert str(event["SUMMARY"]).endswith(f"District Noir #{running_table.pk}")


def test_a_revoked_or_made_again_address_answers_404(running_table):
    mover = mover_of(running_table)
    first = calendar_token_make(user=mover)
    second = calendar_token_make(user=mover)
    assert fetch(first)[0] == 404 and fetch(second)[0] == 200
    calendar_token_revoke(user=mover)
    assert fetch(second)[0] == 404
    status, _calendar, response = fetch("not-a-token")
    assert status == 404 and response.content == b""


@pytest.mark.parametrize("bad", ["x" * 200, "..", "%00", "a.b"])
def test_bad_addresses_answer_404_never_500(db, bad):
    # A NUL in the path is refused by Django itself (400) before any view.
    assert Client().get(f"/calendar/{bad}.ics").status_code in (400, 404)


def test_the_secret_is_stored_only_hashed(running_table):
    mover = mover_of(running_table)
    token = calendar_token_make(user=mover)
    mover.refresh_from_db()
    assert mover.calendar_key and token not in mover.calendar_key
    with connection.cursor() as cursor:
        cursor.execute("SELECT calendar_key FROM accounts_user WHERE id = %s", [mover.pk])
        (stored,) = cursor.fetchone()
    assert token not in stored and re.fullmatch(r"[0-9a-f]{64}", stored)


def test_caching_headers_and_304_on_if_none_match(running_table):
    token = calendar_token_make(user=mover_of(running_table))
    _status, _calendar, response = fetch(token)
    assert "private" in response["Cache-Control"] and "max-age=300" in response["Cache-Control"]
    assert response["ETag"] and response["Last-Modified"]
    assert "Set-Cookie" not in response and not response.cookies
    again = Client().get(feed_path(token), headers={"If-None-Match": response["ETag"]})
    assert again.status_code == 304 and again.content == b""
    play_a_legal_move(running_table)  # the deadlines changed: a new feed
    changed = Client().get(feed_path(token), headers={"If-None-Match": response["ETag"]})
    assert changed.status_code == 200 and changed["ETag"] != response["ETag"]


def test_the_feed_answers_only_get_and_head(running_table):
    token = calendar_token_make(user=mover_of(running_table))
    assert Client().post(feed_path(token)).status_code == 405
    assert Client().head(feed_path(token)).status_code == 200


@pytest.mark.parametrize("count", [1, 5])
def test_a_fixed_number_of_queries_however_many_tables(
    make_user, count, django_assert_max_num_queries
):
    player = make_user()
    tables = waiting_tables(player, [make_user() for _ in range(count)])
    waiting = [t for t in tables if mover_of(t) == player]
    token = calendar_token_make(user=player)
    with django_assert_max_num_queries(4):
        status, calendar, _response = fetch(token)
    assert status == 200 and len(events(calendar)) == len(waiting)


def test_a_tournament_windows_round_deadline_and_window_game_appear(make_user):
    creator, players = make_user(), [make_user(), make_user()]
    starts_at = timezone.now() + dt.timedelta(hours=1)
    tournament = tournament_create(
        user=creator,
        chosen=TournamentSettings(
            name="Calendar Swiss",
            game="district-noir",
            format="swiss_windows",
            table_size=2,
            seconds_per_move=86400,
            starts_at=starts_at,
            min_players=2,
            max_players=8,
            rounds=2,
            round_window=dt.timedelta(days=3),
            start_within=dt.timedelta(days=1),
        ),
    )
    for player in players:
        tournament_join(tournament_id=tournament.pk, user=player)
    sweep_tournaments(now=starts_at)
    round_ = Round.objects.get(tournament=tournament, number=1)
    assert round_.closes_at is not None
    found = events(fetch(calendar_token_make(user=players[0]))[1])
    ends = found[f"tournament-{tournament.pk}-round-{round_.pk}@{site_host()}"]
    assert ends.decoded("DTSTART") == round_.closes_at.replace(microsecond=0)
    assert str(ends["SUMMARY"]) == "Calendar Swiss: round 1 ends"
    assert str(ends["URL"]).endswith(reverse("tournament_page", args=[tournament.pk]))
    assert ends.walk("VALARM")
    pairing = round_.pairings.get()
    assert pairing.table_id is None and pairing.starts_by is not None  # waits for them to be ready
    game = found[f"tournament-game-{pairing.pk}@{site_host()}"]
    assert game.decoded("DTSTART") == pairing.starts_by.replace(microsecond=0)
    # Not entered: none of it.
    assert events(fetch(calendar_token_make(user=creator))[1]) == {}


def test_the_settings_page_makes_shows_once_and_turns_off_the_address(alice):
    client = client_for(alice)
    page = client.get(reverse("play_settings"))
    assert "Make my calendar address" in page.content.decode()
    assert client.get(reverse("calendar_make")).status_code == 405
    assert client.get(reverse("calendar_revoke")).status_code == 405
    made = client.post(reverse("calendar_make"))
    assert made.status_code == 200 and "no-store" in made["Cache-Control"]
    match = re.search(r'value="(https?://[^"]*/calendar/([\w-]+)\.ics)"', made.content.decode())
    assert match is not None
    token = match.group(2)
    assert fetch(token)[0] == 200
    shown_again = client.get(reverse("play_settings")).content.decode()
    assert token not in shown_again and "Turn my calendar address off" in shown_again
    off = client.post(reverse("calendar_revoke"))
    assert off.status_code == 302
    assert fetch(token)[0] == 404


def test_making_the_address_needs_the_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(reverse("calendar_make")).status_code == 403
    alice.refresh_from_db()
    assert alice.calendar_key is None
