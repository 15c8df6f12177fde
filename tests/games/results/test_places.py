"""Places on the leaderboards, shown on the players' pages.

A place is one more than the number of established ratings of the same game above it; equal
ratings share their place. Provisional ratings have none. A place is right as soon as a rating
is written, whatever writes it: a finished game, a correction, an account closed.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

import pytest
from django.db import connections, transaction
from django.urls import reverse
from django.utils import timezone

from games.jobs import sweeps
from games.models import PROVISIONAL_GAMES, STEPS_A_POINT, Rating, RatingStep
from games.selectors.places import places_set, step_of
from games.services.places import steps_rebuild
from tests.conftest import client_for
from tests.factories import UserFactory
from tests.games.rated_games import finished_game

pytestmark = pytest.mark.django_db

ESTABLISHED = PROVISIONAL_GAMES


def rated(name: str, ordinal: float, games: int = ESTABLISHED, game: str = "slide") -> Rating:
    user = UserFactory(username=name, password=None)
    return Rating.objects.create(
        user=user,
        game=game,
        mu=ordinal + 6.0,
        sigma=2.0,
        ordinal=ordinal,
        games_played=games,
        last_played=timezone.now() - dt.timedelta(days=1),
    )


def places() -> dict[str, int | None]:
    ratings = list(Rating.objects.select_related("user"))
    places_set(ratings)
    return {r.user.username: r.place for r in ratings}


def counted_one_by_one() -> dict[str, int | None]:
    """Each place as the rule says it: the established ratings of the game above, plus one."""
    ratings = list(Rating.objects.select_related("user"))
    established = [r for r in ratings if r.games_played >= ESTABLISHED]
    return {
        r.user.username: (
            1 + sum(o.game == r.game and o.ordinal > r.ordinal for o in established)
            if r.games_played >= ESTABLISHED
            else None
        )
        for r in ratings
    }


def ladder() -> dict[tuple[str, int], int]:
    counts: Counter[tuple[str, int]] = Counter()
    for game, step, count in RatingStep.objects.values_list("game", "step", "count"):
        counts[(game, step)] += count
    return {key: count for key, count in counts.items() if count}


def test_each_game_apart_ties_share_a_place_provisional_have_none():
    rated("ann", 30.0)
    rated("ben", 25.0)
    rated("cid", 25.0)
    rated("dot", 20.0)
    rated("eve", 40.0, games=ESTABLISHED - 1)  # provisional: above everyone, not ranked
    rated("fay", 10.0, game="gnav")  # another game's leaderboard
    rated("gus", 12.0, game="gnav", games=50)

    assert places() == {
        "ann": 1,
        "ben": 2,
        "cid": 2,
        "dot": 4,
        "eve": None,
        "fay": 2,
        "gus": 1,
    }


def test_a_place_moves_as_soon_as_a_rating_does():
    rated("ann", 30.0)
    rated("ben", 25.0)
    dot = rated("dot", 20.0)
    rated("fay", 10.0, game="gnav")
    newcomer = rated("eve", 40.0, games=ESTABLISHED - 1)

    Rating.objects.filter(pk=dot.pk).update(ordinal=26.0)  # dot passes ben
    assert places() == {"ann": 1, "dot": 2, "ben": 3, "fay": 1, "eve": None}

    newcomer.games_played = ESTABLISHED  # eve established: she goes first
    newcomer.save()
    assert places() == {"eve": 1, "ann": 2, "dot": 3, "ben": 4, "fay": 1}

    Rating.objects.filter(pk=dot.pk).update(game="gnav")  # a correction: another game
    assert places() == {"eve": 1, "ann": 2, "dot": 1, "ben": 3, "fay": 2}


def test_a_rating_no_longer_established_or_gone_leaves_its_place():
    ann = rated("ann", 30.0)
    rated("ben", 25.0)
    cid = rated("cid", 27.0)
    Rating.objects.filter(pk=ann.pk).update(games_played=ESTABLISHED - 1)  # a replay, say
    assert places() == {"ann": None, "cid": 1, "ben": 2}
    cid.user.delete()  # an account closed: its ratings go with it
    assert places() == {"ann": None, "ben": 1}


def test_ratings_on_a_step_s_edges_and_below_zero_are_placed_as_counted():
    """The ladder's steps are a quarter of a point: ratings on their bounds, a hair under, and
    negative ones (a new player's rating is below zero) are where the rule puts them."""
    edges = [2.25, 2.25, 2.0, 2.5 - 1e-12, 2.25 - 1e-12, 0.0, -0.25, -0.25 + 1e-12, -3.1, 1e-12]
    for index, ordinal in enumerate(edges):
        rated(f"p{index}", ordinal)
    assert places() == counted_one_by_one()
    expected_ladder = Counter(("slide", step_of(ordinal)) for ordinal in edges)
    sweeps.sweep_places()
    assert ladder() == expected_ladder
    assert RatingStep.objects.count() == len(expected_ladder)


def test_many_changes_in_any_order_give_the_places_counted_one_by_one():
    rng = random.Random(5)
    ratings = [
        rated(f"p{i}", round(rng.uniform(-4, 6), rng.choice([0, 1, 2, 9])), games=rng.randint(3, 9))
        for i in range(40)
    ]
    for round_ in range(6):
        for rating in rng.sample(ratings, 12):
            rating.refresh_from_db()
            rating.ordinal = round(rng.uniform(-4, 6), rng.choice([0, 1, 2]))
            rating.games_played = rng.randint(3, 9)
            rating.save()
        if round_ % 2:
            assert sweeps.sweep_places() > 0
        assert places() == counted_one_by_one()
    rng.choice(ratings).delete()
    Rating.objects.filter(ordinal__lt=0).update(games_played=ESTABLISHED + 3)
    assert places() == counted_one_by_one()


def test_the_job_adds_the_ladder_up_and_then_has_nothing_to_do():
    for index in range(5):
        rated(f"p{index}", 10.0 + index / 20)  # the step 40: from 10.0 up to 10.25
    rated("p5", 10.5)  # the step 42
    ben = Rating.objects.get(user__username="p1")
    ben.ordinal = 30.0
    ben.save()
    assert RatingStep.objects.count() == 8  # six +1, then -1 and +1
    before = places()

    assert sweeps.sweep_places() == 6  # the step 40's rows; the others have one each
    assert ladder() == {("slide", 40): 4, ("slide", 42): 1, ("slide", 120): 1}
    assert RatingStep.objects.count() == 3
    assert places() == before
    assert sweeps.sweep_places() == 0, "a second run with nothing changed takes nothing"


def test_counting_the_ladder_afresh_gives_what_the_triggers_kept():
    rng = random.Random(8)
    for index in range(30):
        game = rng.choice(["slide", "gnav"])
        rated(f"p{index}", rng.uniform(-5, 8), games=rng.randint(2, 8), game=game)
    kept = ladder()
    assert steps_rebuild() == len(kept)
    assert ladder() == kept


@pytest.mark.django_db(transaction=True)
def test_two_games_finishing_at_once_in_one_step_do_not_wait_for_each_other():
    """Their ratings enter the same step: each transaction adds rows of its own (a row is added,
    never updated), so the second needs no lock the first holds, and both are counted."""
    if connections["default"].vendor != "postgresql":
        pytest.skip("a lock timeout is PostgreSQL's")
    ann = rated("ann", 20.1)  # step 80
    ben = rated("ben", 20.2)  # step 80
    other = connections.create_connection("default")
    try:
        with transaction.atomic():
            Rating.objects.filter(pk=ann.pk).update(ordinal=20.3)  # into step 81, not committed
            with other.cursor() as cursor:
                cursor.execute("SET lock_timeout = '2s'")  # waiting would raise
                cursor.execute("UPDATE games_rating SET ordinal = 20.35 WHERE id = %s", [ben.pk])
        assert places() == {"ben": 1, "ann": 2}
        assert ladder() == {("slide", 81): 2}
    finally:
        other.close()


def test_the_profile_shows_the_place_at_once(alice, bob):
    for seed in range(ESTABLISHED):
        finished_game(alice, bob, seed=seed)
    url = reverse("player_profile", args=[alice.username])
    page = client_for(None).get(url)
    [entry] = page.context["profile"].ratings
    bob_rating = Rating.objects.get(user=bob)
    expected = 1 if entry.ordinal >= bob_rating.ordinal else 2
    assert not entry.provisional and entry.place == expected
    cell = page.content.decode().split(f"<strong>{entry.ordinal:.1f}</strong></td>")[1]
    assert cell.split("</td>")[0].strip() == f'<td class="num">{expected}'


def test_the_steps_are_a_power_of_two_of_a_point():
    """A step's bounds are then exact in floating point, as the count within a step needs."""
    assert STEPS_A_POINT & (STEPS_A_POINT - 1) == 0


def test_beat_runs_the_job_every_five_minutes_and_the_embedded_loop_too(settings, monkeypatch):
    from games.jobs import embedded
    from games.jobs.tasks import sweep_places

    assert settings.CELERY_BEAT_SCHEDULE["sweep-places"] == {
        "task": "games.tasks.sweep_places",
        "schedule": 300,
    }
    ann = rated("ann", 30.0)
    Rating.objects.filter(pk=ann.pk).update(ordinal=31.0)
    assert sweep_places.delay().get() == 2

    clock = [1_000_000.0]
    monkeypatch.setattr(sweeps.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(sweeps, "_last_places", [])
    runs: list[int] = []
    monkeypatch.setattr(sweeps, "steps_compact", lambda: runs.append(1) or 0)
    embedded.run_once()
    clock[0] += 60
    embedded.run_once()
    assert len(runs) == 1, "not again within five minutes"
    clock[0] += 240
    embedded.run_once()
    assert len(runs) == 2


def test_a_place_s_count_can_use_the_established_ratings_index_in_any_plan():
    """A prepared statement's generic plan knows no parameter: the bound of established must be
    in the statement for the planner to use the partial index (else it reads every rating of the
    game). With other ways off, the plan names that index."""
    from django.db import connection

    from games.selectors import places as places_module

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's plans")
    numbered = places_module._ONE_PLACE
    for number in range(1, numbered.count("%s") + 1):
        numbered = numbered.replace("%s", f"${number}", 1)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute(f"PREPARE place_probe (int, text, int, text, float8, float8) AS {numbered}")
        try:
            cursor.execute(
                "EXPLAIN (FORMAT JSON) EXECUTE place_probe (0, 'slide', 40, 'slide', 10.1, 10.25)"
            )
            [(plan,)] = cursor.fetchall()
        finally:
            cursor.execute("DEALLOCATE place_probe")
    assert "rating_established" in str(plan)
