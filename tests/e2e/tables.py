"""Tables for the browser tests, made through the services: one of any game for a few players,
a running one played on at random until a given player may act, and a move played as another
player's page would, on a thread of its own."""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from django.db import connections

from accounts.models import User
from games.models import Table
from games.rules import get_rules
from games.services.moves import move_play
from games.services.tables import table_create, table_join
from tests.conftest import play_a_legal_move

P = ParamSpec("P")
R = TypeVar("R")


def off_the_event_loop(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` run ``elsewhere`` when called under Playwright (whose event loop runs in the
    test's thread, where the services' broadcasts cannot), else where it is called (a test
    without a browser may hold its data in a transaction no other thread sees)."""

    @functools.wraps(function)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return function(*args, **kwargs)
        return elsewhere(function, *args, **kwargs)

    return run


@off_the_event_loop
def until_turn_of(table: Table, user: User, rng: random.Random, kind: str | None = None) -> Table:
    """Random moves until ``user`` may act (with an action of ``kind``, if given): their hand
    shows as buttons. Should the game end first (a Gnav seat can lose its three lives before
    its turn comes), the same players sit down at a new table like it and play on there."""
    for _attempt in range(5):
        waiting = played_until_turn_of(table, user, rng, kind)
        if waiting is not None:
            return waiting
        table = a_table_like(table)
    raise AssertionError(f"never {user}'s turn at five tables of {table.game}")


def played_until_turn_of(
    table: Table, user: User, rng: random.Random, kind: str | None
) -> Table | None:
    """The table once ``user`` may act there; None if its game ended first."""
    rules = get_rules(table.game)
    for _ in range(200):
        table.refresh_from_db()
        state = rules.from_json(table.state)
        active = rules.active_seats(state)
        mine = table.seats.get(user=user).position
        if mine in active and (
            kind is None or any(a["type"] == kind for a in rules.legal_actions(state, mine))
        ):
            return table
        if not active:
            return None
        position = rng.choice(active)
        seat = table.seats.select_related("user").get(position=position)
        action = rng.choice(rules.legal_actions(state, position))
        move_play(table_id=table.pk, user=seat.user, action=action, version=table.version)
    raise AssertionError(f"never {user}'s turn at {table}")


def a_table_like(table: Table) -> Table:
    """A new table of the same game, options and time per move, its players in the same seats."""
    users = [seat.user for seat in table.seats.select_related("user").order_by("position")]
    new = table_create(
        user=users[0],
        game=table.game,
        num_seats=table.num_seats,
        seconds_per_move=table.seconds_per_move,
        options=table.options,
        rated=table.rated,
    )
    for user in users[1:]:
        table_join(table_id=new.pk, user=user)
    new.refresh_from_db()
    return new


@off_the_event_loop
def a_table(game: str, players: list[User]) -> Table:
    rules = get_rules(game)
    seated = players[: max(2, rules.min_players, 4 if game == "gnav" else 0)]
    table = table_create(user=seated[0], game=game, num_seats=len(seated), seconds_per_move=86400)
    for player in seated[1:]:
        table_join(table_id=table.pk, user=player)
    table.refresh_from_db()
    return table


def elsewhere(function, /, *args: Any, **kwargs: Any) -> Any:
    """Calls ``function`` on a thread of its own, as the server would: Playwright keeps an
    event loop running in the test's thread, where a broadcast (async_to_sync) cannot run."""
    with ThreadPoolExecutor(1) as pool:
        try:
            return pool.submit(function, *args, **kwargs).result()
        finally:
            pool.submit(connections.close_all).result()


def play_one(table: Table) -> int:
    """Plays a legal move through the service (on a thread of its own); the new version."""
    table.refresh_from_db()
    return elsewhere(play_a_legal_move, table, random.Random(table.version)).version
