"""A reputation for pace (#30.5): each player's median time to move, share of turns played
within their reminder delay, timeouts per 100 moves and games abandoned over the last 90 days,
summed up by a periodic job from the moves stored through games' own services; shown on the
profile and as a badge beside the name in the lobby and at tables, at no query of its own; and
a table's pace requirement, refused with its reason and nothing changed."""

from __future__ import annotations

import datetime as dt
import random
import statistics

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import REMINDERS_OFF
from games import boards
from games.errors import Forbidden, GameError
from games.jobs import embedded
from games.models import Move, PaceMove, PlayerPace, Seat, Table
from games.selectors import pace as pace_selectors
from games.selectors.pace import (
    PACE_MIN_MOVES,
    QUICK,
    QUICK_MEDIAN_SECONDS,
    SLOW,
    SLOW_ABANDONED,
    SLOW_MEDIAN_SECONDS,
    SLOW_TIMEOUTS_PER_100,
    STEADY,
    pace_admits,
    pace_badge,
    paces_for,
)
from games.services.bot_moves import seat_hand_to_bot, table_play_out
from games.services.pace import WINDOW, pace_refresh
from games.services.table_rows import table_seats
from games.services.tables import table_create, table_create_against_bots, table_join
from tests.conftest import client_for, forget_boards
from tests.support.pace import (
    history,
    paced,
    play_turns,
    refreshed,
    seat_of,
    spread,
    table_between,
)
from tests.support.page_queries import LOBBY_QUERIES, PROFILE_QUERIES, TABLE_PAGE_QUERIES

pytestmark = pytest.mark.django_db


def _own_moves(table: Table, user) -> int:
    position = seat_of(table, user).position
    return Move.objects.filter(table=table, position=position, by=Move.By.PLAYER).count()


# -- the figures, from the stored moves ---------------------------------------------------


def test_the_figures_come_from_the_stored_moves_and_timeouts(alice, bob):
    """Alice moves 30 times and runs out of time twice; every move (hers and Bob's) is stored
    ten minutes after the one before it, the first ten minutes after the start."""
    tables = history(alice, bob, moves=30, timeouts=2, seed=1)
    for table in tables:
        spread(table, seconds=600)
    rows = refreshed()

    mine = rows[alice.pk]
    assert mine.moves == 32  # her turns: 30 moves and 2 timeouts
    assert mine.median_seconds == 600
    assert mine.within_delay_share == pytest.approx(30 / 32)  # a timeout never is in time
    assert mine.timeouts_per_100 == pytest.approx(100 * 2 / 32)
    assert mine.abandoned == 0

    theirs = rows[bob.pk]
    bobs = sum(_own_moves(table, bob) for table in tables)
    assert (theirs.moves, theirs.median_seconds, theirs.timeouts_per_100) == (bobs, 600, 0)
    assert theirs.within_delay_share == 1


def test_the_median_is_of_the_players_own_moves(alice, bob):
    quick, slow = history(alice, bob, moves=12, seed=2), history(alice, bob, moves=12, seed=3)
    durations: list[float] = []
    for tables, seconds in ((quick, 60), (slow, 5 * 3600)):
        for table in tables:
            spread(table, seconds=seconds)
            durations += [seconds] * _own_moves(table, alice)
    assert len(durations) == 24
    assert refreshed()[alice.pk].median_seconds == round(statistics.median(durations))


def test_within_the_delay_is_within_the_players_own_reminder_delay(make_user):
    """Two hours a move: within a four-hour delay, not within an hour's (the default); a
    player reminded never is held to the default."""
    patient, hurried, unreminded, host = (make_user() for _ in range(4))
    patient.reminder_delay, unreminded.reminder_delay = 240, REMINDERS_OFF
    patient.save()
    unreminded.save()
    for player in (patient, hurried, unreminded):
        for table in history(player, host, moves=5, seed=player.pk):
            spread(table, seconds=2 * 3600)
    rows = refreshed()
    assert rows[patient.pk].within_delay_share == 1
    assert rows[hurried.pk].within_delay_share == 0
    assert rows[unreminded.pk].within_delay_share == 0


def test_a_seat_given_up_for_good_is_abandoned_and_its_bot_moves_are_not_the_players(alice, bob):
    """Three timeouts and a bot takes Alice's seat; the game is then played out (a round's
    window closed), which stores every bot move for her seat as a timeout: only the three
    that her seat counts are hers."""
    table = table_between(alice, bob)
    assert play_turns(table, alice, moves=0, timeouts=3, rng=random.Random(4)) == (0, 3)
    assert seat_of(table, alice).replaced_by_bot
    play_turns(table, bob, moves=1, rng=random.Random(4))  # Bob moves: Alice's bot waits
    assert table_play_out(table_id=table.pk)
    table.refresh_from_db()
    position = seat_of(table, alice).position
    stored_as_timeouts = Move.objects.filter(table=table, position=position, by="timeout")
    assert stored_as_timeouts.count() > 3

    rows = refreshed()
    assert (rows[alice.pk].moves, rows[alice.pk].timeouts_per_100) == (3, 100)
    assert rows[alice.pk].median_seconds is None  # not one move of her own
    assert rows[alice.pk].abandoned == 1
    assert rows[bob.pk].moves == _own_moves(table, bob)  # the bot's moves for him not counted
    assert rows[bob.pk].abandoned == 0


def test_a_seat_handed_to_a_bot_in_a_running_game_is_abandoned_already(alice, bob):
    table = table_between(alice, bob)
    play_turns(table, alice, moves=2, rng=random.Random(5))
    assert seat_hand_to_bot(table_id=table.pk, user_id=alice.pk)
    assert refreshed()[alice.pk].abandoned == 1


def test_moves_and_games_older_than_the_window_are_left_out(alice, bob):
    now = timezone.now()
    old = history(alice, bob, moves=6, timeouts=1, seed=6)
    for table in old:
        spread(table, seconds=60, since=now - WINDOW - dt.timedelta(days=10))
    assert alice.pk not in refreshed(now)

    recent = history(alice, bob, moves=4, seed=7)
    assert refreshed(now)[alice.pk].moves == 4

    abandoned = table_between(alice, bob)
    play_turns(abandoned, alice, moves=0, timeouts=3, rng=random.Random(8))
    play_turns(abandoned, bob, moves=1, rng=random.Random(8))
    table_play_out(table_id=abandoned.pk)
    assert refreshed(now)[alice.pk].abandoned == 1
    Table.objects.filter(pk=abandoned.pk).update(finished_at=now - WINDOW - dt.timedelta(days=1))
    Move.objects.filter(table=abandoned).update(created_at=now - WINDOW - dt.timedelta(days=1))
    row = refreshed(now)[alice.pk]
    assert (row.abandoned, row.moves) == (0, 4)
    assert recent


def test_games_alone_or_against_bots_keep_nobody_waiting(alice):
    table = table_create_against_bots(
        user=alice, game="district-noir", num_seats=2, level="easy", seconds_per_move=86400
    )
    play_turns(table, alice, moves=3, timeouts=1, rng=random.Random(9))
    assert Move.objects.filter(table=table, by=Move.By.PLAYER).exists()
    assert alice.pk not in refreshed()


def test_the_job_writes_one_row_a_player_again_and_again_and_drops_the_idle(alice, bob):
    tables = history(alice, bob, moves=3, seed=10)
    first = refreshed()
    assert set(first) == {alice.pk, bob.pk}
    assert pace_refresh() == 2
    assert PlayerPace.objects.count() == 2
    later = timezone.now() + WINDOW + dt.timedelta(days=1)  # every move has left the window
    assert all(table.is_running for table in tables)  # seated still, but no move in the window
    assert pace_refresh(now=later) == 0
    assert not PlayerPace.objects.exists()


def test_the_periodic_job_is_a_task_beat_runs_every_minute_and_the_embedded_loop_runs_too(
    alice, bob, settings
):
    from games.jobs.tasks import sweep_pace

    assert settings.CELERY_BEAT_SCHEDULE["sweep-pace"] == {
        "task": "games.tasks.sweep_pace",
        "schedule": settings.SWEEP_SECONDS,
    }
    assert settings.SWEEP_SECONDS == 60
    history(alice, bob, moves=2, seed=11)
    assert sweep_pace.delay().get() == 2
    PlayerPace.objects.all().delete()
    PaceMove.objects.all().delete()
    settings.TASKS_MODE = "thread"
    embedded.run_once()
    assert PlayerPace.objects.count() == 2
    history(alice, bob, moves=1, seed=12)
    before = PlayerPace.objects.get(user=alice).moves
    embedded.run_once()  # every round: the new move is counted
    assert PlayerPace.objects.get(user=alice).moves == before + 1


def test_no_page_computes_the_pace_on_load(alice, bob):
    """Until the job has run, the moves show no badge: pages read the stored row only."""
    history(alice, bob, moves=PACE_MIN_MOVES, seed=12)
    table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    assert 'class="badge pace' not in client_for(None).get(reverse("lobby")).text
    assert not PlayerPace.objects.exists()
    pace_refresh()
    assert 'class="badge pace' in client_for(None).get(reverse("lobby")).text


# -- the badge ------------------------------------------------------------------------------


def _row(**figures) -> PlayerPace:
    values = {
        "median_seconds": 600,
        "within_delay_share": 0.9,
        "timeouts_per_100": 0.0,
        "abandoned": 0,
        "moves": PACE_MIN_MOVES,
        **figures,
    }
    return PlayerPace(**values)


def test_the_badge_is_decided_from_the_row_by_named_thresholds():
    assert pace_badge(None) is None
    assert pace_badge(_row(moves=PACE_MIN_MOVES - 1)) is None
    assert pace_badge(_row()) == QUICK
    assert pace_badge(_row(median_seconds=QUICK_MEDIAN_SECONDS + 1)) == STEADY
    assert pace_badge(_row(timeouts_per_100=3.0)) == STEADY
    assert pace_badge(_row(abandoned=1)) == STEADY
    assert pace_badge(_row(median_seconds=SLOW_MEDIAN_SECONDS + 1)) == SLOW
    assert pace_badge(_row(timeouts_per_100=SLOW_TIMEOUTS_PER_100)) == SLOW
    assert pace_badge(_row(abandoned=SLOW_ABANDONED)) == SLOW
    assert pace_badge(_row(median_seconds=None, timeouts_per_100=100)) == SLOW


def test_paces_are_read_in_one_query_for_any_number_of_players(
    make_user, django_assert_num_queries
):
    players = [make_user() for _ in range(10)]
    for player in players[:7]:
        paced(player)
    with django_assert_num_queries(1):
        found = paces_for([p.pk for p in players] + [None])
    assert set(found) == {p.pk for p in players[:7]}
    with django_assert_num_queries(0):
        assert paces_for([None]) == {}


def test_the_lobby_shows_the_badge_beside_the_name_with_the_figures_in_words(alice, bob, carol):
    paced(bob, median_seconds=50, within_delay_share=0.95, timeouts_per_100=1.5, abandoned=0)
    paced(carol, moves=PACE_MIN_MOVES - 1)  # too few moves: no badge
    table_create(user=bob, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_create(user=carol, game="district-noir", num_seats=2, seconds_per_move=86400)
    html = client_for(alice).get(reverse("lobby")).text
    words = (
        "Pace: quick. Over the last 90 days: a median of 50 seconds to move, 95% of moves within"
        " the reminder delay, 1.5 timeouts per 100 moves, 0 games abandoned."
    )
    badge = (
        f'bob <span class="badge pace pace-quick" role="img" title="{words}"'
        f' aria-label="{words}">quick</span>'
    )
    assert badge in html
    assert html.count('class="badge pace') == 1


def test_the_table_page_shows_each_players_badge_to_every_viewer(make_user, alice, bob, carol):
    table = table_between(alice, bob)
    paced(alice, median_seconds=2 * 3600)
    paced(bob, timeouts_per_100=12.0, abandoned=3)
    for viewer in (alice, carol, None):
        html = client_for(viewer).get(reverse("table_detail", args=[table.pk])).text
        seats = html.split('class="seat-list"')[1].split("</ul>")[0]
        assert seats.count('class="badge pace') == 2
        assert 'pace-steady" role="img"' in seats and ">steady</span>" in seats
        assert "12.0 timeouts per 100 moves, 3 games abandoned." in seats
        assert "a median of 2 hours to move" in seats


def test_a_moves_new_board_draws_the_badges_without_a_query(alice, bob, django_assert_num_queries):
    """The move's seats (``table_seats``) carry their players' pace: its board needs none."""
    table = table_between(alice, bob)
    paced(alice)
    seats = table_seats(table=table)
    with django_assert_num_queries(0):
        part = boards.public_part(table, seats)
    assert 'class="badge pace pace-quick"' in part.html


def test_seats_read_without_their_pace_get_it_in_one_query(alice, bob, django_assert_num_queries):
    table = table_between(alice, bob)
    paced(alice)
    seats = list(table.seats.select_related("user"))
    with django_assert_num_queries(1):
        pace_selectors.seats_paced(seats)
    assert [seat.pace is not None for seat in seats] == [True, False]


# -- the profile ----------------------------------------------------------------------------


def test_the_profile_shows_the_four_figures(alice, bob, django_assert_max_num_queries):
    paced(
        alice, median_seconds=2 * 3600, within_delay_share=0.75, timeouts_per_100=2.5, abandoned=1
    )
    client = client_for(bob)
    with django_assert_max_num_queries(PROFILE_QUERIES):
        response = client.get(reverse("player_profile", args=[alice.username]))
    section = response.text.split('id="pace"')[1].split("</section>")[0]
    for figure in (
        "<dt>Median time to move</dt><dd>2 hours</dd>",
        "<dt>Moves within their reminder delay</dt><dd>75%</dd>",
        "<dt>Timeouts per 100 moves</dt><dd>2.5</dd>",
        "<dt>Games abandoned</dt><dd>1</dd>",
    ):
        assert figure in section
    assert "40 moves" in section and 'class="badge pace pace-steady"' in section


def test_a_profile_without_moves_says_so(alice, bob):
    html = client_for(bob).get(reverse("player_profile", args=[alice.username])).text
    assert "No move in the last 90 days at a table with other players." in html
    history(alice, bob, moves=3, seed=13)
    pace_refresh()
    section = client_for(bob).get(reverse("player_profile", args=[alice.username])).text
    section = section.split('id="pace"')[1].split("</section>")[0]
    assert "3 moves" in section and "Too few to judge a pace" in section
    assert 'class="badge pace' not in section


# -- a table that requires a pace -----------------------------------------------------------


def _demanding(creator, limit: int = 5) -> Table:
    return table_create(
        user=creator,
        game="district-noir",
        num_seats=2,
        seconds_per_move=86400,
        pace_max_timeouts_per_100=limit,
    )


REFUSAL = (
    "This table is open to players with fewer than 5 timeouts per 100 moves; you had 10.0 over"
    " the last 90 days."
)


def test_joining_is_refused_with_the_reason_and_nothing_changes(alice, bob):
    table = _demanding(alice)
    paced(bob, timeouts_per_100=10.0)
    with pytest.raises(Forbidden) as refused:
        table_join(table_id=table.pk, user=bob)
    assert refused.value.message == REFUSAL and refused.value.status == 403
    after = Table.objects.get(pk=table.pk)
    assert (after.status, after.version) == (Table.Status.OPEN, table.version)
    assert list(Seat.objects.filter(table=table).values_list("user_id", flat=True)) == [alice.pk]


def test_over_http_the_refusal_is_a_4xx_with_the_reason(alice, bob):
    table = _demanding(alice)
    paced(bob, timeouts_per_100=10.0)
    client = client_for(bob)
    url = reverse("table_join", args=[table.pk])
    answer = client.post(url, HTTP_HX_REQUEST="true")
    assert answer.status_code == 403 and REFUSAL in answer.text
    page = client.post(url, follow=True)  # without JavaScript: back to the table, told why
    assert page.redirect_chain[-1][0] == reverse("table_detail", args=[table.pk])
    assert REFUSAL in page.text
    assert not Seat.objects.filter(table=table, user=bob).exists()


@pytest.mark.parametrize(
    "figures",
    [
        {"timeouts_per_100": 4.9},
        {"timeouts_per_100": 50.0, "moves": PACE_MIN_MOVES - 1},  # a newcomer
        None,  # no row: no game in the window
    ],
    ids=["under the limit", "too few moves to judge", "no record"],
)
def test_a_player_under_the_limit_or_too_new_to_judge_is_admitted(alice, bob, figures):
    table = _demanding(alice)
    if figures is not None:
        paced(bob, **figures)
    table_join(table_id=table.pk, user=bob)
    assert Table.objects.get(pk=table.pk).is_running


def test_the_limit_is_fewer_than_n():
    assert not pace_admits(_row(timeouts_per_100=5.0), 5)
    assert pace_admits(_row(timeouts_per_100=4.99), 5)
    assert pace_admits(_row(timeouts_per_100=99.0), None)


def test_the_creator_sets_the_requirement_in_the_lobbys_form(alice, bob):
    form = {
        "game": "district-noir",
        "district-noir-num_seats": "2",
        "district-noir-seconds_per_move": "86400",
        "district-noir-rated": "on",
    }
    client = client_for(alice)
    answer = client.post(
        reverse("table_create"), {**form, "district-noir-pace_max_timeouts_per_100": "5"}
    )
    table = Table.objects.get(created_by=alice)
    assert answer.status_code == 302 and table.pace_max_timeouts_per_100 == 5
    lobby = client_for(bob).get(reverse("lobby")).text
    assert "fewer than 5 timeouts per 100 moves" in lobby
    assert "Require fewer than N timeouts per 100 moves" in client.get(reverse("lobby")).text

    refused = client.post(
        reverse("table_create"), {**form, "district-noir-pace_max_timeouts_per_100": "0"}
    )
    assert refused.status_code == 400 and Table.objects.filter(created_by=alice).count() == 1
    client.post(reverse("table_create"), form)
    assert Table.objects.filter(created_by=alice).last().pace_max_timeouts_per_100 is None
    with pytest.raises(GameError):
        _demanding(alice, limit=101)


# -- a fixed number of queries, however many players have a pace ----------------------------


def _lobby_queries(client) -> int:
    client.get(reverse("lobby"))  # the session and the player's settings, cached from here on
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("lobby"))
    assert response.status_code == 200
    return len(captured.captured_queries)


def test_the_lobby_costs_the_same_with_1_or_10_paced_tables(alice, make_user):
    client = client_for(alice)
    counts = []
    for tables in (1, 9):  # 1, then 10 tables whose players all have a pace
        for _ in range(tables):
            host, guest = make_user(), make_user()
            paced(host)
            paced(guest)
            table_create(user=host, game="district-noir", num_seats=2, seconds_per_move=86400)
            mine = table_create(
                user=alice, game="district-noir", num_seats=2, seconds_per_move=86400
            )
            table_join(table_id=mine.pk, user=guest)
        paced(alice)
        counts.append(_lobby_queries(client))
    assert counts[0] == counts[1] <= LOBBY_QUERIES
    assert client.get(reverse("lobby")).text.count('class="badge pace') == 10 * 3


def test_the_table_page_costs_the_same_with_1_or_6_paced_players(make_user):
    players = [make_user() for _ in range(6)]
    table = table_between(*players, game="slide")
    client = client_for(players[0])
    url = reverse("table_detail", args=[table.pk])
    counts = []
    for shown in (1, 6):
        for player in players[:shown]:
            paced(player)
        client.get(url)  # the session and the player's settings, cached from here on
        forget_boards()  # the board is drawn again, with every badge
        with CaptureQueriesContext(connection) as captured:
            html = client.get(url).text
        counts.append(len(captured.captured_queries))
        seats = html.split('class="seat-list"')[1].split("</ul>")[0]
        assert seats.count('class="badge pace') == shown
    assert counts[0] == counts[1] <= TABLE_PAGE_QUERIES
