"""Making a tournament and entering it (#29.1), as players do it over HTTP: anyone signed in
creates one; bad settings, a full, started or forbidden tournament and another's cancel are
refused with a 4xx and a sentence, and change nothing; the pages read a fixed number of
queries however many players."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Block, User
from games.models import Rating
from games.services.tables import table_create, table_join
from tests.conftest import client_for
from tests.games.rated_games import play_to_the_end
from tournaments.models import Entry, Tournament
from tournaments.services.entries import (
    TournamentSettings,
    tournament_cancel,
    tournament_create,
    tournament_join,
)

pytestmark = pytest.mark.django_db
HOUR = dt.timedelta(hours=1)


def _when(delta: dt.timedelta = 24 * HOUR) -> str:
    """A start as the browser's datetime-local sends it: the player's wall clock (UTC here)."""
    return (timezone.now() + delta).strftime("%Y-%m-%dT%H:%M")


def _form(**changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "game": "district-noir",
        "name": "Autumn Swiss",
        "format": "swiss",
        "starts_at": _when(),
        "rounds": "5",
        "min_players": "4",
        "max_players": "32",
        "min_finished_games": "0",
        "match_games": "1",
        "district-noir-num_seats": "2",
        "district-noir-seconds_per_move": "86400",
        "district-noir-rated": "on",
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def _swiss(creator: User, **changes: object) -> Tournament:
    chosen = {
        "name": "Swiss",
        "game": "district-noir",
        "format": "swiss",
        "table_size": 2,
        "seconds_per_move": 86400,
        "starts_at": timezone.now() + 24 * HOUR,
        "rounds": 3,
        "min_players": 2,
        "max_players": 4,
        **changes,
    }
    return tournament_create(user=creator, chosen=TournamentSettings(**chosen))  # type: ignore[arg-type]


def test_a_player_creates_a_tournament_from_the_form(make_user):
    alice = make_user(username="alice", time_zone="UTC")
    client = client_for(alice)
    assert client.get(reverse("tournament_new")).status_code == 200
    page = client.get(reverse("tournament_new") + "?game=point-city")
    assert page.status_code == 200 and "point-city-option_" in page.content.decode()
    response = client.post(reverse("tournament_new"), _form())
    tournament = Tournament.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("tournament_page", args=[tournament.pk])
    assert (tournament.name, tournament.format, tournament.rounds) == ("Autumn Swiss", "swiss", 5)
    assert tournament.created_by == alice and tournament.is_signup and tournament.rated
    listing = client_for(None).get(reverse("tournaments")).content.decode()
    assert "Autumn Swiss" in listing


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "   "}, "This field is required."),
        ({"format": "ladder"}, "not one of the available choices"),
        ({"game": "chess"}, "There is no such game."),
        ({"district-noir-num_seats": "3"}, "not one of the available choices"),
        ({"min_players": "10", "max_players": "4"}, "the fewest no more than the most"),
        ({"max_players": "257"}, "less than or equal to 256"),
        ({"rounds": None}, "Say how many rounds it has."),
        ({"rounds": "0"}, "greater than or equal to 1"),
        ({"match_games": "3"}, "Matches of 3 or 5 games are for single elimination only."),
        ({"starts_at": _when(-HOUR)}, "It starts after now, and within a year."),
        ({"starts_at": _when(400 * 24 * HOUR)}, "It starts after now, and within a year."),
        ({"starts_at": "yesterday"}, "Enter a valid date/time."),
        ({"round_window_days": "3"}, "Round windows are for a Swiss with round windows."),
        ({"format": "swiss_windows"}, "A round&#x27;s window is longer than the time per move."),
        (
            {"game": "slide", "slide-num_seats": "3", "slide-seconds_per_move": "86400"},
            "This format seats two players a table.",
        ),
        ({"min_rating": "nan"}, "Enter a number."),
        ({"district-noir-seconds_per_move": "1"}, "not one of the available choices"),
    ],
)
def test_impossible_settings_are_refused_with_a_message(make_user, changes, message):
    client = client_for(make_user())
    response = client.post(reverse("tournament_new"), _form(**changes))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Tournament.objects.exists()


def test_multiplayer_rounds_seat_the_chosen_table_size(make_user):
    client = client_for(make_user())
    response = client.post(
        reverse("tournament_new"),
        _form(
            game="slide",
            format="multiplayer",
            **{"slide-num_seats": "4", "slide-seconds_per_move": "86400"},
        ),
    )
    assert response.status_code == 302
    tournament = Tournament.objects.get()
    assert (tournament.game, tournament.table_size) == ("slide", 4)


def test_entering_and_leaving_while_sign_up_is_open(make_user):
    creator, bob = make_user(), make_user(username="bob")
    tournament = _swiss(creator)
    client = client_for(bob)
    response = client.post(reverse("tournament_join", args=[tournament.pk]))
    assert response.status_code == 302
    assert Entry.objects.filter(tournament=tournament, user=bob).exists()
    again = client.post(reverse("tournament_join", args=[tournament.pk]))
    assert (
        again.status_code == 409
        and "You have entered this tournament already." in again.content.decode()
    )
    page = client.get(reverse("tournament_page", args=[tournament.pk])).content.decode()
    assert "bob" in page and "Leave" in page
    assert client.post(reverse("tournament_leave", args=[tournament.pk])).status_code == 302
    assert not Entry.objects.filter(tournament=tournament).exists()
    out = client.post(reverse("tournament_leave", args=[tournament.pk]))
    assert out.status_code == 409 and "You are not in this tournament." in out.content.decode()


def _refused(user: User, tournament: Tournament, status: int, message: str) -> None:
    before = list(Entry.objects.order_by("pk").values_list("pk", flat=True))
    response = client_for(user).post(reverse("tournament_join", args=[tournament.pk]))
    assert response.status_code == status, response.status_code
    assert message in response.content.decode()
    assert list(Entry.objects.order_by("pk").values_list("pk", flat=True)) == before


def test_a_full_started_cancelled_or_unknown_tournament_takes_no_one(make_user):
    creator = make_user()
    full = _swiss(creator, max_players=2)
    for _ in range(2):
        tournament_join(tournament_id=full.pk, user=make_user())
    _refused(make_user(), full, 409, "This tournament is full.")
    started = _swiss(creator)
    Tournament.objects.filter(pk=started.pk).update(status=Tournament.Status.RUNNING)
    _refused(make_user(), started, 409, "Sign-up has closed: the tournament has started.")
    late = _swiss(creator)
    Tournament.objects.filter(pk=late.pk).update(starts_at=timezone.now() - HOUR)
    _refused(make_user(), late, 409, "Sign-up has closed")
    cancelled = _swiss(creator)
    tournament_cancel(tournament_id=cancelled.pk, user=creator)
    _refused(make_user(), cancelled, 409, "This tournament was cancelled.")
    response = client_for(make_user()).post(reverse("tournament_join", args=[999999]))
    assert response.status_code == 404


def test_the_entry_rules_refuse_who_does_not_meet_them_and_say_why(make_user):
    creator, newcomer, veteran = make_user(), make_user(), make_user()
    rated = _swiss(creator, min_rating=10.0)
    _refused(newcomer, rated, 403, "asks for a rating of at least 10.0 at District Noir")
    Rating.objects.create(user=veteran, game="district-noir", mu=40, sigma=2, ordinal=34)
    assert client_for(veteran).post(reverse("tournament_join", args=[rated.pk])).status_code == 302

    practised = _swiss(creator, min_finished_games=1)
    _refused(newcomer, practised, 403, "asks for 1 finished game of District Noir first")
    table = table_create(user=newcomer, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=make_user())
    play_to_the_end(table)
    assert (
        client_for(newcomer).post(reverse("tournament_join", args=[practised.pk])).status_code
        == 302
    )


def test_a_block_against_games_keeps_the_two_apart(make_user):
    creator, alice, bob = make_user(), make_user(), make_user()
    tournament = _swiss(creator)
    tournament_join(tournament_id=tournament.pk, user=alice)
    Block.objects.create(blocker=alice, blocked=bob, no_games=True)
    _refused(bob, tournament, 403, "You cannot enter this tournament.")
    other = _swiss(creator)
    tournament_join(tournament_id=other.pk, user=bob)
    _refused(alice, other, 403, "You blocked a player in this tournament")


def test_only_its_creator_cancels_it_and_only_before_the_start(make_user):
    creator, stranger = make_user(), make_user()
    tournament = _swiss(creator)
    response = client_for(stranger).post(reverse("tournament_cancel", args=[tournament.pk]))
    assert response.status_code == 403
    assert "Only the player who created a tournament can cancel it." in response.content.decode()
    assert Tournament.objects.get(pk=tournament.pk).is_signup
    assert (
        client_for(creator).post(reverse("tournament_cancel", args=[tournament.pk])).status_code
        == 302
    )
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.CANCELLED
    again = client_for(creator).post(reverse("tournament_cancel", args=[tournament.pk]))
    assert again.status_code == 409


def test_a_visitor_reads_the_pages_and_is_sent_to_sign_in_to_act(make_user):
    tournament = _swiss(make_user())
    visitor = client_for(None)
    assert visitor.get(reverse("tournaments")).status_code == 200
    assert visitor.get(reverse("tournament_page", args=[tournament.pk])).status_code == 200
    assert visitor.get(reverse("tournament_page", args=[999999])).status_code == 404
    for name in ("tournament_join", "tournament_leave", "tournament_cancel"):
        response = visitor.post(reverse(name, args=[tournament.pk]))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert visitor.get(reverse("tournament_new")).status_code == 302
    assert (
        client_for(make_user()).get(reverse("tournament_join", args=[tournament.pk])).status_code
        == 405
    )
    assert not Entry.objects.exists()


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_the_pages_read_a_fixed_number_of_queries_however_many_players(make_user):
    creator = make_user()
    client = client_for(make_user())
    tournament = _swiss(creator, max_players=64)
    page = reverse("tournament_page", args=[tournament.pk])
    _queries(client, reverse("tournaments"))  # the session's first page reads a little more
    before = (_queries(client, reverse("tournaments")), _queries(client, page))
    for _ in range(12):
        tournament_join(tournament_id=tournament.pk, user=make_user())
    for _ in range(5):
        _swiss(creator)
    assert (_queries(client, reverse("tournaments")), _queries(client, page)) == before


def test_a_name_of_spaces_is_refused_by_the_service_too(make_user):
    from games.errors import GameError

    with pytest.raises(GameError, match=r"Give the tournament a name\."):
        _swiss(make_user(), name=" \t ")
    assert not Tournament.objects.exists()


def test_a_players_tournaments_and_wins_are_on_their_profile(
    make_user, django_assert_max_num_queries
):
    from tests.support.page_queries import PROFILE_QUERIES

    creator, alice = make_user(), make_user(username="alice")
    won = _swiss(creator, name="Spring Swiss")
    tournament_join(tournament_id=won.pk, user=alice)
    Tournament.objects.filter(pk=won.pk).update(status=Tournament.Status.FINISHED, winner=alice)
    running = _swiss(creator, name="Summer Swiss")
    tournament_join(tournament_id=running.pk, user=alice)
    gone = _swiss(creator, name="Cancelled Swiss")
    tournament_join(tournament_id=gone.pk, user=alice)
    tournament_cancel(tournament_id=gone.pk, user=creator)
    viewer = client_for(make_user())
    with django_assert_max_num_queries(PROFILE_QUERIES):
        page = viewer.get(reverse("player_profile", args=["alice"])).content.decode()
    assert "Spring Swiss" in page and "Summer Swiss" in page
    assert "Cancelled Swiss" not in page
    assert page.count("winner") == 1
    mine = client_for(alice).get(reverse("player_profile", args=["alice"])).content.decode()
    assert "My tournaments" in mine
    # Nobody's profile grows a panel before they enter one.
    assert (
        "profile-tournaments"
        not in viewer.get(reverse("player_profile", args=[creator.username])).content.decode()
    )


def test_while_tournaments_are_shut_no_page_or_link_offers_them(make_user, settings):
    """On a running site they stay shut until their rounds are played (TOURNAMENTS_OPEN)."""
    creator, alice = make_user(), make_user(username="alice")
    tournament = _swiss(creator)
    tournament_join(tournament_id=tournament.pk, user=alice)
    settings.TOURNAMENTS_OPEN = False
    client = client_for(alice)
    for url in (
        reverse("tournaments"),
        reverse("tournament_new"),
        reverse("tournament_page", args=[tournament.pk]),
    ):
        assert client.get(url).status_code == 404
    for name in ("tournament_join", "tournament_leave", "tournament_cancel"):
        assert client_for(creator).post(reverse(name, args=[tournament.pk])).status_code == 404
    assert Entry.objects.filter(tournament=tournament).count() == 1
    assert reverse("tournaments") not in client.get(reverse("lobby")).content.decode()
    profile = client.get(reverse("player_profile", args=["alice"])).content.decode()
    assert "profile-tournaments" not in profile
    settings.TOURNAMENTS_OPEN = True
    assert reverse("tournaments") in client.get(reverse("lobby")).content.decode()
