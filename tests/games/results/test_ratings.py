"""Ratings follow openskill's Plackett-Luce model and move only with rated games between people."""

from __future__ import annotations

import random
import threading
from itertools import pairwise

import pytest
from django.db import connection, connections
from openskill.models import PlackettLuce

from games.models import Rating, RatingChange, Seat, Table
from games.rules import get_rules
from games.selectors.replays import state_replay
from games.services import ratings
from games.services.moves import move_play
from games.services.tables import (
    table_abort,
    table_create,
    table_create_against_bots,
    table_seat_bot,
)
from tests.factories import UserFactory
from tests.games.rated_games import finished_game, play_to_the_end, start_game

pytestmark = pytest.mark.django_db

DN = get_rules("district-noir")
OPENSKILL = PlackettLuce()


def approx_rating(rating):
    return pytest.approx((rating.mu, rating.sigma), rel=1e-12)


# The maths, on known cases


def test_a_first_win_between_new_players_gives_openskills_documented_numbers():
    winner, loser = ratings.rate(ratings=[ratings.new_rating(), ratings.new_rating()], ranks=[0, 1])
    assert (winner.mu, winner.sigma) == pytest.approx((27.635389493140497, 8.06590141354368))
    assert (loser.mu, loser.sigma) == pytest.approx((22.364610506859503, 8.06590141354368))
    assert winner.ordinal() > 0 > loser.ordinal()


def test_a_tie_between_equals_keeps_their_mu_and_makes_both_surer():
    first, second = ratings.rate(ratings=[ratings.new_rating(), ratings.new_rating()], ranks=[0, 0])
    assert first.mu == pytest.approx(25.0) and second.mu == pytest.approx(25.0)
    assert first.sigma == second.sigma < 25 / 3


def test_four_players_are_rated_by_place_exactly_as_openskill_does():
    before = [OPENSKILL.rating(mu=m, sigma=s) for m, s in [(25, 8.3), (30, 5), (20, 7), (27, 2)]]
    places = [2, 0, 3, 1]
    expected = OPENSKILL.rate([[r] for r in before], ranks=places)
    after = ratings.rate(ratings=before, ranks=places)
    assert [(r.mu, r.sigma) for r in after] == [(t[0].mu, t[0].sigma) for t in expected]
    fresh = ratings.rate(ratings=[ratings.new_rating() for _ in range(4)], ranks=places)
    by_place = sorted(range(4), key=lambda seat: places[seat])
    assert [fresh[seat].mu for seat in by_place] == sorted((r.mu for r in fresh), reverse=True)


def test_players_sharing_a_place_among_four_move_alike():
    after = ratings.rate(ratings=[ratings.new_rating() for _ in range(4)], ranks=[1, 0, 1, 2])
    assert (after[0].mu, after[0].sigma) == pytest.approx((after[2].mu, after[2].sigma))
    assert after[1].mu > after[0].mu > after[3].mu


def test_settling_four_players_records_each_change_from_the_tables_places():
    users = [UserFactory() for _ in range(4)]
    table = Table.objects.create(
        game="point-city",
        num_seats=4,
        seconds_per_move=86400,
        created_by=users[0],
        status=Table.Status.FINISHED,
        outcome={"ranks": [2, 0, 3, 1], "scores": [5, 9, 1, 7], "reason": "score"},
    )
    seats = [Seat.objects.create(table=table, position=p, user=u) for p, u in enumerate(users)]
    changes = ratings.ratings_settle(table=table, seats=seats)
    expected = OPENSKILL.rate([[OPENSKILL.rating()] for _ in users], ranks=[2, 0, 3, 1])
    for user, change, team in zip(users, changes, expected, strict=True):
        stored = Rating.objects.get(user=user, game="point-city")
        assert (change.user_id, change.rank) == (user.pk, [2, 0, 3, 1][users.index(user)])
        assert (stored.mu, stored.sigma) == approx_rating(team[0])
        assert stored.ordinal == pytest.approx(team[0].ordinal())
        assert (change.mu_after, change.sigma_after) == (stored.mu, stored.sigma)
        assert change.ordinal_before == pytest.approx(0.0)


# When ratings move


def test_finishing_a_rated_game_moves_both_ratings_as_openskill_would(alice, bob):
    table = finished_game(alice, bob)
    ranks = table.outcome["ranks"]
    expected = ratings.rate(ratings=[ratings.new_rating(), ratings.new_rating()], ranks=ranks)
    for position, user in enumerate((alice, bob)):
        rating = Rating.objects.get(user=user, game="district-noir")
        assert (rating.mu, rating.sigma) == approx_rating(expected[position])
        assert (rating.games_played, rating.last_played) == (1, table.finished_at)
        change = RatingChange.objects.get(table=table, user=user)
        assert change.rank == ranks[position]
        assert change.ordinal_after == pytest.approx(rating.ordinal)


def test_the_ratings_are_settled_in_the_transaction_that_finishes_the_game(alice, bob, monkeypatch):
    table = start_game(alice, bob)

    def broken(**kwargs):
        raise RuntimeError("rating store down")

    monkeypatch.setattr(ratings, "ratings_settle", broken)
    with pytest.raises(RuntimeError):
        play_to_the_end(table)
    table.refresh_from_db()
    assert table.is_running, "the finishing move was rolled back with the ratings"
    assert DN.to_json(state_replay(table)) == table.state
    assert not Rating.objects.exists()


def test_a_friendly_game_moves_no_rating(alice, bob):
    table = finished_game(alice, bob, rated=False)
    assert table.is_finished
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_game_against_a_bot_moves_no_rating_even_on_a_rated_table(alice):
    table = table_create(
        user=alice, game="district-noir", num_seats=2, seconds_per_move=86400, rated=True
    )
    table_seat_bot(table_id=table.pk, user=alice, level="easy")
    table.refresh_from_db()
    assert table.rated
    assert play_to_the_end(table).is_finished
    assert not Rating.objects.exists()


def test_tables_opened_against_bots_are_friendly(alice):
    table = table_create_against_bots(
        user=alice, game="district-noir", num_seats=2, level="easy", seconds_per_move=86400
    )
    assert not table.rated


def test_an_aborted_table_moves_no_rating(alice, bob):
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_abort(table_id=table.pk, user=alice)
    assert Table.objects.get(pk=table.pk).status == Table.Status.ABORTED
    assert not Rating.objects.exists() and not RatingChange.objects.exists()


def test_a_player_who_lost_on_timeouts_is_rated_last_whatever_the_cards_said(alice, bob):
    # Find a game the cards would have given to bob, then let a bot take his seat mid-game.
    for seed in range(20):
        table = start_game(alice, bob)
        rng = random.Random(seed)
        trial = DN.setup(2, table.seed, table.options)
        while DN.outcome(trial) is None:
            seat = rng.choice(DN.active_seats(trial))
            trial = DN.apply(trial, seat, rng.choice(DN.legal_actions(trial, seat)))
        if DN.outcome(trial).ranks == [1, 0]:
            break
    else:
        pytest.skip("no game the cards gave to bob")
    Seat.objects.filter(table=table, user=bob).update(replaced_by_bot=True, timeouts=3)
    table = play_to_the_end(table, random.Random(seed))
    assert table.outcome["forfeited"] == [1]
    assert table.outcome["ranks"] == [0, 1]
    bob_change = RatingChange.objects.get(table=table, user=bob)
    alice_change = RatingChange.objects.get(table=table, user=alice)
    assert (alice_change.rank, bob_change.rank) == (0, 1)
    assert bob_change.delta < 0 < alice_change.delta


def test_a_rating_recomputed_from_the_history_equals_the_stored_one(alice, bob, carol):
    pairs = [(alice, bob), (bob, carol), (carol, alice), (alice, bob), (bob, carol)]
    for seed, pair in enumerate(pairs):
        finished_game(*pair, seed=seed)
    stored = {r.user_id: r for r in Rating.objects.filter(game="district-noir")}
    recomputed = ratings.ratings_recompute(game="district-noir")
    assert set(recomputed) == set(stored) == {alice.pk, bob.pk, carol.pk}
    for user_id, rating in stored.items():
        assert (rating.mu, rating.sigma) == approx_rating(recomputed[user_id])
        history = list(RatingChange.objects.filter(user_id=user_id).order_by("id"))
        assert len(history) == rating.games_played
        assert history[0].mu_before == pytest.approx(25.0)
        for previous, change in pairwise(history):
            assert (change.mu_before, change.sigma_before) == (
                previous.mu_after,
                previous.sigma_after,
            )
        assert (history[-1].mu_after, history[-1].sigma_after) == (rating.mu, rating.sigma)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks need PostgreSQL (set DATABASE_URL)"
)
def test_games_sharing_players_that_end_at_once_each_move_the_ratings_once(alice, bob, carol):
    """Three games among the same three players, each finished by its last move at the same
    moment: every rating takes every game, one after the other, and replays from history."""
    pairs = [(alice, bob), (bob, carol), (carol, alice)]
    fresh = ratings.new_rating()
    for user in (alice, bob, carol):  # existing rows: only the row lock orders the updates
        Rating.objects.create(
            user=user, game="district-noir", mu=fresh.mu, sigma=fresh.sigma, ordinal=0.0
        )
    last_moves = []
    for seed, pair in enumerate(pairs):
        table = start_game(*pair)
        rng, trial, moves = random.Random(seed), DN.setup(2, table.seed, table.options), []
        while DN.outcome(trial) is None:
            seat = rng.choice(DN.active_seats(trial))
            action = rng.choice(DN.legal_actions(trial, seat))
            moves.append((seat, action))
            trial = DN.apply(trial, seat, action)
        for seat, action in moves[:-1]:
            move_play(table_id=table.pk, user=pair[seat], action=action, version=None)
        last_moves.append((table.pk, pair[moves[-1][0]], moves[-1][1]))
    start = threading.Barrier(len(last_moves))

    def finish(table_id, user, action) -> None:
        try:
            start.wait()
            move_play(table_id=table_id, user=user, action=action, version=None)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=finish, args=move) for move in last_moves]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert Table.objects.filter(status=Table.Status.FINISHED).count() == len(pairs)
    stored = {r.user_id: r for r in Rating.objects.all()}
    assert {r.games_played for r in stored.values()} == {2}
    recomputed = ratings.ratings_recompute(game="district-noir")
    for user_id, rating in stored.items():
        assert (rating.mu, rating.sigma) == approx_rating(recomputed[user_id])
