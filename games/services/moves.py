"""Playing a move: the one write path for a player's move, a bot's and a timeout's.

Runs in one transaction with the table row locked (``FOR UPDATE``), so two requests for the
same table are handled one at a time; a move is checked against the version the player saw,
applied once, appended to the log. Its reads and writes are the statements of
``move_statements`` (two for a move, none compiled by the ORM); a game's first state and its
end go through the ORM. Each change returns its events (``games.services.events``),
published only after the commit: the live layer and the jobs subscribe to them, so nothing
here imports either.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.errors import Conflict, Forbidden, GameError
from games.models import Move, Seat, Table
from games.rules import AnyRules, IllegalAction
from games.services import clocks, events, move_statements, ratings, records
from games.services.events import Event
from games.services.presence import seat_present
from games.services.table_rows import table_rules, table_seats


def state_store(
    *,
    table: Table,
    rules: AnyRules,
    state: Any,
    mover: int | None = None,
    seats: list[Seat] | None = None,
) -> list[Event]:
    """Saves a new state and all that follows from it (version, clocks, outcome, ratings)
    through the ORM and returns the events of the change, for the caller to publish: a game's
    first state (``tables``), and its last move. Other moves write by hand (``move_apply``).

    The caller holds the table's row lock (and may pass ``table_seats(table)`` to spare a
    query).
    """
    if seats is None:
        seats = table_seats(table=table)
    change = _state_set(table=table, rules=rules, state=state, mover=mover, seats=seats)
    _change_save(table=table, seats=seats, change=change)
    return change.events


@dataclass(frozen=True)
class _Change:
    """What a new state changed in the rows (set on the instances already), to be written."""

    table_fields: list[str]
    seats: list[Seat]  # the seats whose clocks (or, at the end, results) changed
    seat_fields: list[str]
    ended: bool
    events: list[Event]


def _state_set(
    *, table: Table, rules: AnyRules, state: Any, mover: int | None, seats: list[Seat]
) -> _Change:
    """Sets a new state and all that follows from it on ``table`` and ``seats``: version,
    clocks, outcome. A ``mover`` still waited for after its move (a solo game, or two actions
    in a row) starts a new turn with a fresh clock. A state with a ``mover`` is a move's: the
    table keeps its time (``last_move_at``, for the lobby); the first state (no mover) is none.
    """
    now = timezone.now()
    table.state = rules.to_json(state)
    table.version += 1
    outcome = rules.outcome(state)
    waiting = set(rules.waiting_seats(state)) if outcome is None else set()
    fields = ["state", "version", "moves_played", "status", "started_at", "seed"]
    if mover is not None:
        table.last_move_at = now
        fields.append("last_move_at")
    final: dict[str, Any] | None = None
    if outcome is not None:
        table.status = Table.Status.FINISHED
        table.finished_at = now
        table.outcome = final = _with_forfeits(outcome.to_json(), seats)
        fields += ["finished_at", "outcome"]

    def starts_turn(seat: Seat) -> bool:
        return seat.position in waiting and (not seat.is_waiting or seat.position == mover)

    changed: list[Seat] = []
    started: list[int] = []
    for seat in seats:
        if starts_turn(seat):
            clocks.seat_turn_start(
                seat=seat, table=table, now=now, on_vacation=getattr(seat, "on_vacation", False)
            )
            started.append(seat.position)
        elif seat.position not in waiting and seat.is_waiting:
            clocks.seat_turn_stop(seat=seat)
        elif outcome is None:
            continue
        if final is not None:
            seat.rank = final["ranks"][seat.position]
            seat.score = final["scores"][seat.position]
            seat.finished_at = now
        changed.append(seat)
    ended = ["rank", "score", "finished_at"] if outcome is not None else []
    seat_fields = [*clocks.CLOCK_FIELDS, *ended]

    found: list[Event] = [events.table_changed(table_id=table.pk, version=table.version)]
    if started:
        movers = tuple(
            seat.user_id for seat in seats if seat.position in started and seat.user_id is not None
        )
        seen = _all_seen(seats, waiting, now)
        found.append(events.TurnStarted(table.pk, table.version, tuple(started), movers, seen))
    if outcome is not None:
        players = tuple(seat.user_id for seat in seats if seat.user_id is not None)
        found.append(events.GameEnded(table.pk, table.version, players))
    if any(seat.is_bot for seat in seats if seat.position in waiting):
        found.append(events.BotTurnDue(table.pk, table.version))
    return _Change(fields, changed, seat_fields, outcome is not None, found)


def _all_seen(seats: list[Seat], waiting: set[int], now: dt.datetime) -> bool:
    """Whether every person the table waits for has it open (``presence.seat_present``) and
    every other player has no unread notification: then a turn tells nobody anything. From
    the seats as the move read them, users included; a seat read without its user: unknown."""
    for seat in seats:
        if seat.user_id is None:
            continue
        if seat.position in waiting:
            if not seat.is_bot and not seat_present(seat=seat, now=now):
                return False
        else:
            user = seat.user if _SEAT_USER.is_cached(seat) else None
            if user is None or user.notes_unread:
                return False
    return True


_SEAT_USER = Seat._meta.get_field("user")


def _change_save(*, table: Table, seats: list[Seat], change: _Change) -> None:
    """Writes a ``_Change`` through the ORM; a game that ended settles its ratings (if rated)
    and counts in its players' records."""
    if change.ended and ratings.table_counts_for_ratings(table=table, seats=seats):
        ratings.ratings_settle(table=table, seats=seats)
    if change.ended:
        records.records_add(table=table, seats=seats)
    table.save(update_fields=change.table_fields)
    if len(change.seats) > 2:  # one UPDATE for them all (it costs more CPU than two simple ones)
        Seat.objects.bulk_update(change.seats, change.seat_fields)
    else:
        for seat in change.seats:
            seat.save(update_fields=change.seat_fields)


def _with_forfeits(outcome: dict[str, Any], seats: list[Seat]) -> dict[str, Any]:
    """Players replaced by a bot after too many timeouts are ranked last, below everyone;
    in a solo game, below the game itself: a loss (``Outcome``'s ``details["solo"]``)."""
    lost = sorted(s.position for s in seats if s.replaced_by_bot and s.user_id)
    if not lost:
        return outcome
    if len(outcome["ranks"]) == 1:
        details = outcome.get("details", {})
        solo = {**details.get("solo", {}), "won": False}
        return {**outcome, "ranks": [1], "details": {**details, "solo": solo}, "forfeited": lost}
    ranks = list(outcome["ranks"])
    stayed = sorted({ranks[p] for p in range(len(ranks)) if p not in lost})
    place = {old: new for new, old in enumerate(stayed)}
    for position in range(len(ranks)):
        ranks[position] = len(stayed) if position in lost else place[ranks[position]]
    return {**outcome, "ranks": ranks, "forfeited": lost}


@dataclass(frozen=True)
class MoveResult:
    table: Table
    move: Move
    seats: list[Seat]  # as the move left them, users loaded: the new board needs no re-read
    events: list[Event]  # published on commit already; returned for the caller and the tests
    state: Any  # the new state, so that the new board needs no re-parse


def move_apply(
    *, table: Table, seat: Seat, action: Any, by: str, seats: list[Seat] | None = None
) -> MoveResult:
    """Applies one action for ``seat`` at a table locked for this transaction (``move_read``,
    ``table_locked``), stores it all and publishes its events on commit. ``seats`` (from the
    same read, or ``table_seats``) spares a query.

    A move that ends the game is stored through the ORM (``state_store``: results, ratings);
    any other by the move's own statement (``move_statements.move_write``).
    """
    rules = table_rules(table=table)
    assert table.state is not None  # only a started table takes moves
    state = rules.from_json(table.state)
    try:
        new_state = rules.apply(state, seat.position, action)
    except IllegalAction as exc:
        raise GameError(_(exc.message)) from None
    if seats is None:
        seats = table_seats(table=table)
    table.moves_played += 1
    move = Move(table=table, seq=table.moves_played, position=seat.position, action=action, by=by)
    change = _state_set(table=table, rules=rules, state=new_state, mover=seat.position, seats=seats)
    move.version = table.version
    if change.ended:
        _change_save(table=table, seats=seats, change=change)
        move.save()
    else:
        move_statements.move_write(table=table, seats=change.seats, move=move)
    events.publish_on_commit(events=change.events)
    return MoveResult(table=table, move=move, seats=seats, events=change.events, state=new_state)


@transaction.atomic
def move_play(*, table_id: int, user: User, action: Any, version: int | None) -> MoveResult:
    """Plays ``action`` for ``user``'s seat, if the table is still at ``version``.

    A stale or repeated submission raises ``Conflict`` and changes nothing. A move that goes
    on with the game runs two statements (``move_statements``), none compiled by the ORM.
    """
    user_id = user.pk if user.is_authenticated else None
    read = move_statements.move_read(table_id=table_id, user_id=user_id, version=version)
    table, seats = read.table, read.seats
    seat = next((s for s in seats if user_id is not None and s.user_id == user_id), None)
    if seat is None:
        raise Forbidden(_("You are not seated at this table."))
    if not table.is_running:
        raise Conflict(_("This game is not running."))
    # Others moving meanwhile does not make a choice stale: in a simultaneous phase everyone
    # acts at once, and whatever is no longer legal is refused by the rules.
    if version is not None and version != table.version and read.moved_since:
        raise Conflict(_("The game moved on before your move arrived. Here is the board now."))
    if seat.replaced_by_bot:
        raise Forbidden(_("A bot plays this seat now: you ran out of time too often."))
    return move_apply(table=table, seat=seat, action=action, by=Move.By.PLAYER, seats=seats)
