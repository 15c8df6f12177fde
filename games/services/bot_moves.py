"""Moves made for a seat by a bot: a bot's own turns and a player's timeouts.

A bot gets only the seat's view and legal actions. Whatever goes wrong inside a
bot, a legal move is still played, so a game never gets stuck on a bot.
"""

from __future__ import annotations

import datetime as dt
import logging
import random
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.catalog import get_bot
from games.models import Move, Seat, Table
from games.rules import Action, AnyRules
from games.services import events
from games.services.move_statements import move_read
from games.services.moves import move_apply
from games.services.table_rows import table_locked, table_rules, table_seats

logger = logging.getLogger(__name__)

TIMEOUT_BOT = "random"


def choose_for_seat(*, rules: AnyRules, state: Any, position: int, level: str, seed: str) -> Action:
    view = rules.view(state, position)
    legal: list[Action] = view["legal_actions"]
    rng = random.Random(seed)
    try:
        action = get_bot(level, rules.slug).choose(view, list(legal), rng)
    except Exception:
        logger.exception("bot %s failed; playing a random legal move", level)
        return rng.choice(legal)
    return action if action in legal else rng.choice(legal)


def _play_for(table: Table, seat: Seat, level: str, by: str, seats: list[Seat]) -> Move:
    rules = table_rules(table=table)
    assert table.state is not None  # bots play at started tables only
    state = rules.from_json(table.state)
    seed = f"{table.pk}:{table.version}:{seat.position}"
    action = choose_for_seat(
        rules=rules, state=state, position=seat.position, level=level, seed=seed
    )
    return move_apply(table=table, seat=seat, action=action, by=by, seats=seats).move


@transaction.atomic
def bot_turn_play(*, table_id: int, version: int) -> Move | None:
    """Plays one move for the first waiting bot seat, if the table is still at ``version``."""
    read = move_read(table_id=table_id, user_id=None, version=None)
    table, seats = read.table, read.seats
    if not table.is_running or table.version != version:
        return None  # the table moved on; whoever moved it queued what comes next
    for seat in seats:
        if seat.is_waiting and seat.is_bot:
            return _play_for(table, seat, seat.bot_level or TIMEOUT_BOT, Move.By.BOT, seats)
    return None


@transaction.atomic
def seat_time_out(*, table_id: int, position: int, now: dt.datetime | None = None) -> Move | None:
    """Plays for a seat whose time ran out; after too many, a bot takes the seat for good.

    Re-checked under the table's lock, so two sweeps never play the same timeout twice.
    """
    now = now or timezone.now()
    read = move_read(table_id=table_id, user_id=None, version=None)
    table, seats = read.table, read.seats
    if not table.is_running:
        return None
    seat = next((s for s in seats if s.position == position), None)
    if seat is None or not seat.is_waiting or seat.deadline is None or seat.deadline > now:
        return None
    if seat.is_bot:
        return _play_for(table, seat, seat.bot_level or TIMEOUT_BOT, Move.By.BOT, seats)
    seat.timeouts += 1
    if seat.timeouts >= table.max_timeouts:
        seat.replaced_by_bot = True
    seat.save(update_fields=["timeouts", "replaced_by_bot"])
    return _play_for(table, seat, TIMEOUT_BOT, Move.By.TIMEOUT, seats)


def player_tables_leave(*, user_id: int) -> int:
    """A disabled account leaves every table (``community.services.moderation``): the open
    tables it opened are aborted and its seats at others' are freed; in a running game a bot
    takes its seat for good, as after too many timeouts (ranked last at the end). Returns how
    many tables it left. One table at a time, each under its lock."""
    left = 0
    for table_id in (
        Seat.objects.filter(user_id=user_id, replaced_by_bot=False)
        .filter(table__status__in=[Table.Status.OPEN, Table.Status.RUNNING])
        .values_list("table_id", flat=True)
    ):
        with transaction.atomic():
            left += _leave(table_locked(table_id=table_id), user_id)
    return left


def _leave(table: Table, user_id: int) -> int:
    if table.is_open:
        if table.created_by_id == user_id:
            table.status = Table.Status.ABORTED
            table.finished_at = timezone.now()
            table.save(update_fields=["status", "finished_at"])
        else:
            table.seats.filter(user_id=user_id).delete()
        _changed(table, [])
        return 1
    if not table.is_running:
        return 0
    seats = table_seats(table=table)
    seat = next((s for s in seats if s.user_id == user_id and not s.replaced_by_bot), None)
    if seat is None:
        return 0
    seat.replaced_by_bot = True
    seat.save(update_fields=["replaced_by_bot"])
    _changed(table, [events.BotTurnDue(table.pk, table.version + 1)] if seat.is_waiting else [])
    return 1


def seat_hand_to_bot(*, table_id: int, user_id: int) -> bool:
    """A player gives up their seat in a running game (a tournament they withdrew from): a bot
    plays it to the end, and the game counts as a loss for them, as after too many timeouts.
    Whether it changed anything."""
    with transaction.atomic():
        table = table_locked(table_id=table_id)
        return table.is_running and _leave(table, user_id) == 1


# A game played out by bots ends well within this many moves; a safety stop beyond it.
PLAY_OUT_MOVES = 5000


@transaction.atomic
def table_play_out(*, table_id: int) -> bool:
    """Ends a running game now (a tournament round's window closed): every seat waited for
    loses on time (a bot takes it for good, ranked last as after too many timeouts), and bots
    play the rest to the end for every seat, so the stored state stays the replay of its
    moves. Whether the game is over."""
    table = table_locked(table_id=table_id)
    if not table.is_running:
        return table.is_finished
    seats = table_seats(table=table)
    for seat in seats:
        if seat.is_waiting and seat.user_id is not None and not seat.replaced_by_bot:
            seat.timeouts += 1
            seat.replaced_by_bot = True
            seat.save(update_fields=["timeouts", "replaced_by_bot"])
    for _move in range(PLAY_OUT_MOVES):
        waited = next((s for s in seats if s.is_waiting), None)
        if not table.is_running or waited is None:
            break
        by = Move.By.TIMEOUT if waited.replaced_by_bot and waited.user_id else Move.By.BOT
        level = waited.bot_level if waited.bot_level and waited.user_id is None else TIMEOUT_BOT
        _play_for(table, waited, level, by, seats)
    if table.is_running:
        logger.error("table %s still runs after %s moves played out", table.pk, PLAY_OUT_MOVES)
    return table.is_finished


def table_redraw(*, table_id: int) -> None:
    """A running table whose boards must be drawn again (a player's name changed: an account
    closed): a new version, told to its pages, and the bot's turn queued again for it (a turn
    queued for the old version would find the table moved on)."""
    with transaction.atomic():
        table = table_locked(table_id=table_id)
        if not table.is_running:
            return
        bot_waits = any(s.is_waiting and s.is_bot for s in table_seats(table=table))
        _changed(table, [events.BotTurnDue(table.pk, table.version + 1)] if bot_waits else [])


def _changed(table: Table, more: list[events.Event]) -> None:
    table.version += 1
    table.save(update_fields=["version"])
    events.publish_on_commit(
        events=[events.table_changed(table_id=table.pk, version=table.version), *more]
    )
