"""Players' records of pace for the pace tests (tests/games/test_pace.py,
tests/tournaments/test_pace_requirement.py): games played through games' own services, each
turn a move (``move_play``) or a timeout (``seat_time_out``, as the deadline sweep plays it),
then the stored moves spread out in time, since a test plays them all in a few milliseconds."""

from __future__ import annotations

import datetime as dt
import random

from django.utils import timezone

from accounts.models import User
from games.models import Move, PlayerPace, Seat, Table
from games.rules import get_rules
from games.services.bot_moves import bot_turn_play, seat_time_out
from games.services.moves import move_play
from games.services.pace import pace_refresh
from games.services.tables import table_create, table_join


def table_between(*users: User, game: str = "district-noir") -> Table:
    """A started table of ``users`` in seat order, a day per move."""
    table = table_create(user=users[0], game=game, num_seats=len(users), seconds_per_move=86400)
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def play_turns(
    table: Table, player: User, *, moves: int, timeouts: int = 0, rng: random.Random
) -> tuple[int, int]:
    """Plays the table on: every other seat moves (a random legal move, a bot's own move for a
    bot's seat); ``player``'s turns are first ``timeouts`` timeouts, then ``moves`` moves of
    their own. Stops once both are done or the game is over (or ``player``'s seat is a bot's);
    returns the moves and timeouts played."""
    rules = get_rules(table.game)
    made = timed_out = 0
    while made < moves or timed_out < timeouts:
        table.refresh_from_db()
        if not table.is_running:
            break
        state = rules.from_json(table.state)
        seats = {seat.position: seat for seat in table.seats.select_related("user")}
        position = rng.choice(rules.active_seats(state))
        seat = seats[position]
        if seat.user_id != player.pk:
            if seat.is_bot:
                assert bot_turn_play(table_id=table.pk, version=table.version) is not None
            else:
                action = rng.choice(rules.legal_actions(state, position))
                move_play(table_id=table.pk, user=seat.user, action=action, version=table.version)
            continue
        if seat.replaced_by_bot:
            break
        if timed_out < timeouts:
            assert seat.deadline is not None
            late = seat.deadline + dt.timedelta(seconds=1)
            assert seat_time_out(table_id=table.pk, position=position, now=late) is not None
            timed_out += 1
        else:
            action = rng.choice(rules.legal_actions(state, position))
            move_play(table_id=table.pk, user=player, action=action, version=table.version)
            made += 1
    return made, timed_out


def history(
    player: User, opponent: User, *, moves: int, timeouts: int = 0, seed: int = 0
) -> list[Table]:
    """Tables of ``player`` against ``opponent`` until ``player`` made ``moves`` moves and ran
    out of time ``timeouts`` times (two a table at most: never taken over by a bot)."""
    rng = random.Random(seed)
    tables = []
    while moves > 0 or timeouts > 0:
        table = table_between(player, opponent)
        made, timed_out = play_turns(table, player, moves=moves, timeouts=min(timeouts, 2), rng=rng)
        moves, timeouts = moves - made, timeouts - timed_out
        tables.append(table)
    return tables


def spread(table: Table, *, seconds: float, since: dt.datetime | None = None) -> None:
    """Each move of the table ``seconds`` after the one before it, the first that long after
    the start; from ``since`` (the table's start moved there too) when given."""
    table.refresh_from_db()
    start = since or table.started_at
    assert start is not None
    Table.objects.filter(pk=table.pk).update(started_at=start)
    step = dt.timedelta(seconds=seconds)
    for move in Move.objects.filter(table=table).only("seq"):
        Move.objects.filter(pk=move.pk).update(created_at=start + move.seq * step)


def paced(user: User, **figures: float | int | None) -> PlayerPace:
    """A stored row for ``user``, as the job would write it: a record of 40 moves, 0 timeouts,
    a median move within a minute, unless ``figures`` say otherwise."""
    values: dict[str, float | int | None] = {
        "median_seconds": 50,
        "within_delay_share": 1.0,
        "timeouts_per_100": 0.0,
        "abandoned": 0,
        "moves": 40,
        **figures,
    }
    row, _created = PlayerPace.objects.update_or_create(
        user=user, defaults={**values, "computed_at": timezone.now()}
    )
    return row


def refreshed(now: dt.datetime | None = None) -> dict[int, PlayerPace]:
    """Runs the job and reads what it wrote, by user id."""
    pace_refresh(now=now)
    return {row.user_id: row for row in PlayerPace.objects.all()}


def seat_of(table: Table, user: User) -> Seat:
    return Seat.objects.get(table=table, user=user)
