"""Finished games for the rating, leaderboard, profile and replay tests."""

from __future__ import annotations

import random

from django.db import transaction

from accounts.models import User
from games.models import Move, Table
from games.rules import get_rules
from games.services.moves import move_apply, move_play
from games.services.table_rows import table_locked
from games.services.tables import table_create, table_join

MAX_MOVES = 1000


def play_to_the_end(table: Table, rng: random.Random | None = None) -> Table:
    """Random legal moves until the game is over: players through ``move_play``, bots and
    seats taken over by a bot through the same locked write path the bot task uses."""
    rng = rng or random.Random(0)
    rules = get_rules(table.game)
    for _ in range(MAX_MOVES):
        table.refresh_from_db()
        if not table.is_running:
            return table
        state = rules.from_json(table.state)
        position = rng.choice(rules.active_seats(state))
        action = rng.choice(rules.legal_actions(state, position))
        seat = table.seats.select_related("user").get(position=position)
        if seat.is_bot:
            with transaction.atomic():
                locked = table_locked(table_id=table.pk)
                move_apply(table=locked, seat=seat, action=action, by=Move.By.BOT)
        else:
            move_play(table_id=table.pk, user=seat.user, action=action, version=table.version)
    raise AssertionError("the game did not end")


def start_game(*users: User, game: str = "district-noir", rated: bool = True) -> Table:
    table = table_create(
        user=users[0], game=game, num_seats=len(users), seconds_per_move=86400, rated=rated
    )
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def finished_game(*users: User, seed: int = 0, rated: bool = True) -> Table:
    """A District Noir game between ``users`` played to its end with random moves."""
    return play_to_the_end(start_game(*users, rated=rated), random.Random(seed))
