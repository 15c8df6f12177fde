"""Players' records (``PlayerRecord``): each game counted once, as it ends, in each of its
players' rows, says what counting every finished seat says (as migration games 0017 counts the
games finished before records were kept, and as the profile counted on every load before)."""

from __future__ import annotations

import importlib
import random

import pytest
from django.apps import apps
from django.db import connection

from games.models import PlayerRecord, Seat, Table
from games.selectors import ratings as rating_selectors
from games.selectors.ratings import profile_for
from games.services.records import records_add
from games.services.tables import table_create
from tests.games.rated_games import play_to_the_end, start_game

pytestmark = pytest.mark.django_db

RECORDS = importlib.import_module("games.migrations.0017_player_records")


def stored() -> set[tuple]:
    return set(
        PlayerRecord.objects.values_list(
            "user_id", "game", "solo", "level", "wins", "draws", "losses"
        )
    )


def counted_from_the_seats() -> set[tuple]:
    PlayerRecord.objects.all().delete()
    with connection.schema_editor() as editor:
        RECORDS.records_from_seats(apps, editor)
    return stored()


def test_the_records_kept_as_games_end_are_those_counted_from_their_seats(make_user):
    players = [make_user() for _ in range(4)]
    rng = random.Random(11)
    for game, seats in [("district-noir", 2), ("slide", 3), ("gnav", 4), ("point-city", 2)] * 2:
        play_to_the_end(start_game(*rng.sample(players, seats), game=game), rng)
    for level in (1, 2, 2, 3):  # alone against the Automa, at its levels
        table = table_create(
            user=players[0],
            game="point-city",
            num_seats=1,
            seconds_per_move=86400,
            options={"automa_difficulty": level},
        )
        play_to_the_end(table, rng)
    # A first place shared (a draw), as a game's end counts it.
    drawn = Table.objects.create(
        game="slide",
        num_seats=2,
        seconds_per_move=86400,
        created_by=players[1],
        status=Table.Status.FINISHED,
        outcome={"ranks": [0, 0], "scores": [3, 3], "reason": "score"},
    )
    seats = [
        Seat.objects.create(table=drawn, position=p, user=players[p + 1], rank=0) for p in (0, 1)
    ]
    records_add(table=drawn, seats=seats)
    kept = stored()
    finished_seats = Seat.objects.filter(table__status=Table.Status.FINISHED, user__isnull=False)
    assert sum(row[4] + row[5] + row[6] for row in kept) == finished_seats.count()
    assert {row[2] for row in kept} == {False, True}  # games against others, and alone
    assert len({row[3] for row in kept if row[2]}) == 3  # three levels apart
    assert any(row[5] for row in kept)  # a draw
    assert kept == counted_from_the_seats()


def test_a_profile_reads_its_record_in_one_query(make_user, django_assert_num_queries):
    alice, bob = make_user(), make_user()
    for seed in range(3):
        play_to_the_end(start_game(alice, bob), random.Random(seed))
    [record] = profile_for(alice).records
    assert record.played == 3
    with django_assert_num_queries(1):
        records, solo = rating_selectors._records(alice, {})
    assert records[0].played == 3 and solo == []
