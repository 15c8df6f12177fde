"""A tournament that requires a pace (#30.5): its creator asks for fewer than N timeouts per
100 moves over the last 90 days, read from games' stored pace; entering is then refused to a
slower player with the reason (a 4xx, nothing entered), and open to one under the limit or
with too few moves to judge."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from games.errors import Forbidden, GameError
from games.selectors.pace import PACE_MIN_MOVES
from tests.conftest import client_for
from tests.support.pace import history, paced, refreshed
from tests.support.tournament_runs import tournament_made
from tournaments.models import Entry, Tournament
from tournaments.services.entries import tournament_join

pytestmark = pytest.mark.django_db

REFUSAL = (
    "This tournament is for players with fewer than 5 timeouts per 100 moves; you had 10.0 over"
    " the last 90 days."
)


def _demanding(creator, limit: int | None = 5) -> Tournament:
    return tournament_made(creator=creator, players=[], rounds=3, pace_max_timeouts_per_100=limit)


def test_a_player_who_times_out_too_often_is_refused_with_the_reason(alice, bob, carol):
    """Bob's pace from his stored games: 18 moves and 2 timeouts, 10 timeouts per 100 moves."""
    history(bob, carol, moves=18, timeouts=2, seed=1)
    assert refreshed()[bob.pk].timeouts_per_100 == pytest.approx(10.0)
    tournament = _demanding(alice)
    with pytest.raises(Forbidden) as refused:
        tournament_join(tournament_id=tournament.pk, user=bob)
    assert refused.value.message == REFUSAL
    assert not Entry.objects.filter(tournament=tournament).exists()


def test_over_http_the_refusal_is_a_4xx_on_the_page(alice, bob):
    tournament = _demanding(alice)
    version = tournament.version
    paced(bob, timeouts_per_100=10.0)
    client = client_for(bob)
    url = reverse("tournament_join", args=[tournament.pk])
    page = client.post(url)
    assert page.status_code == 403 and REFUSAL in page.text
    answer = client.post(url, HTTP_HX_REQUEST="true")
    assert answer.status_code == 403 and REFUSAL in answer.text
    assert not Entry.objects.filter(tournament=tournament).exists()
    tournament.refresh_from_db()
    assert tournament.version == version


@pytest.mark.parametrize(
    "figures",
    [{"timeouts_per_100": 4.9}, {"timeouts_per_100": 40.0, "moves": PACE_MIN_MOVES - 1}, None],
    ids=["under the limit", "too few moves to judge", "no record"],
)
def test_a_player_under_the_limit_or_too_new_to_judge_enters(alice, bob, figures):
    tournament = _demanding(alice)
    if figures is not None:
        paced(bob, **figures)
    tournament_join(tournament_id=tournament.pk, user=bob)
    assert Entry.objects.filter(tournament=tournament, user=bob).exists()


def test_without_a_requirement_any_pace_enters(alice, bob):
    tournament = _demanding(alice, limit=None)
    paced(bob, timeouts_per_100=90.0)
    tournament_join(tournament_id=tournament.pk, user=bob)
    assert Entry.objects.filter(tournament=tournament, user=bob).exists()


def _form(**changes: str) -> dict[str, str]:
    starts = (timezone.now() + dt.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    return {
        "game": "district-noir",
        "name": "Brisk Swiss",
        "format": "swiss",
        "starts_at": starts,
        "rounds": "3",
        "min_players": "4",
        "max_players": "16",
        "min_finished_games": "0",
        "match_games": "1",
        "district-noir-num_seats": "2",
        "district-noir-seconds_per_move": "86400",
        **changes,
    }


def test_the_creator_sets_it_in_the_form_and_the_page_says_it(make_user):
    client = client_for(make_user(time_zone="UTC"))
    new = client.get(reverse("tournament_new") + "?game=district-noir").text
    assert "Require fewer than N timeouts per 100 moves" in new
    response = client.post(reverse("tournament_new"), _form(pace_max_timeouts_per_100="5"))
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and tournament.pace_max_timeouts_per_100 == 5
    page = client_for(None).get(reverse("tournament_page", args=[tournament.pk])).text
    assert "fewer than 5 timeouts per 100 moves over the last 90 days" in page

    refused = client.post(reverse("tournament_new"), _form(pace_max_timeouts_per_100="0"))
    assert refused.status_code == 400 and Tournament.objects.count() == 1


def test_the_service_refuses_a_requirement_out_of_range(alice):
    with pytest.raises(GameError):
        _demanding(alice, limit=101)
