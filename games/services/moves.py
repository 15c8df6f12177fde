"""Playing a move: the one write path for a player's move, a bot's and a timeout's.

Runs in one transaction with the table row locked (``select_for_update``), so two
requests for the same table are handled one at a time; a move is checked against the
version the player saw, applied once, appended to the log. Each change returns its events
(``games.services.events``), published only after the commit: the live layer and the jobs
subscribe to them, so nothing here imports either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.errors import Conflict, Forbidden, GameError
from games.models import Move, Seat, Table
from games.rules import AnyRules, IllegalAction
from games.services import clocks, events, ratings
from games.services.events import Event
from games.services.table_rows import table_locked, table_rules, table_seats


def state_store(
    *,
    table: Table,
    rules: AnyRules,
    state: Any,
    mover: int | None = None,
    seats: list[Seat] | None = None,
) -> list[Event]:
    """Saves a new state and all that follows from it (version, clocks, outcome) and returns
    the events of the change, for the caller to publish.

    The caller holds the table's row lock (and may pass ``table_seats(table)`` to spare a
    query). A ``mover`` still waited for after its move (a solo game, or two actions in a
    row) starts a new turn with a fresh clock. A state with a ``mover`` is a move's: the table
    keeps its time (``last_move_at``, for the lobby); the first state (no mover) is none.
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
    if seats is None:
        seats = table_seats(table=table)
    final: dict[str, Any] | None = None
    if outcome is not None:
        table.status = Table.Status.FINISHED
        table.finished_at = now
        table.outcome = final = _with_forfeits(outcome.to_json(), seats)
        fields += ["finished_at", "outcome"]
        if ratings.table_counts_for_ratings(table=table, seats=seats):
            ratings.ratings_settle(table=table, seats=seats)
    table.save(update_fields=fields)

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
        changed.append(seat)
    fields_changed = [*clocks.CLOCK_FIELDS, *(["rank", "score"] if outcome is not None else [])]
    if len(changed) > 2:  # one UPDATE for them all (it costs more CPU than two simple ones)
        Seat.objects.bulk_update(changed, fields_changed)
    else:
        for seat in changed:
            seat.save(update_fields=fields_changed)

    found: list[Event] = [events.table_changed(table_id=table.pk, version=table.version)]
    if started:
        movers = tuple(
            seat.user_id for seat in seats if seat.position in started and seat.user_id is not None
        )
        found.append(events.TurnStarted(table.pk, table.version, tuple(started), movers))
    if outcome is not None:
        players = tuple(seat.user_id for seat in seats if seat.user_id is not None)
        found.append(events.GameEnded(table.pk, table.version, players))
    if any(seat.is_bot for seat in seats if seat.position in waiting):
        found.append(events.BotTurnDue(table.pk, table.version))
    return found


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
    """Applies one action for ``seat`` at a table from ``table_locked``, stores it all and
    publishes its events on commit. ``seats`` (from ``table_seats``) spares a query."""
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
    found = state_store(table=table, rules=rules, state=new_state, mover=seat.position, seats=seats)
    move.version = table.version
    move.save()
    events.publish_on_commit(events=found)
    return MoveResult(table=table, move=move, seats=seats, events=found, state=new_state)


@transaction.atomic
def move_play(*, table_id: int, user: User, action: Any, version: int | None) -> MoveResult:
    """Plays ``action`` for ``user``'s seat, if the table is still at ``version``.

    A stale or repeated submission raises ``Conflict`` and changes nothing.
    """
    table = table_locked(table_id=table_id)
    seats = table_seats(table=table)
    seat = next((s for s in seats if user.is_authenticated and s.user_id == user.pk), None)
    if seat is None:
        raise Forbidden(_("You are not seated at this table."))
    if not table.is_running:
        raise Conflict(_("This game is not running."))
    if version is not None and version != table.version and _moved_since(table, seat, version):
        raise Conflict(_("The game moved on before your move arrived. Here is the board now."))
    if seat.replaced_by_bot:
        raise Forbidden(_("A bot plays this seat now: you ran out of time too often."))
    return move_apply(table=table, seat=seat, action=action, by=Move.By.PLAYER, seats=seats)


def _moved_since(table: Table, seat: Seat, version: int) -> bool:
    """Whether this seat has moved since the board it chose on (a repeat, or another tab).

    Others moving meanwhile does not make a choice stale: in a simultaneous phase
    everyone acts at once, and whatever is no longer legal is refused by the rules.
    """
    return (
        version > table.version
        or table.moves.filter(position=seat.position, version__gt=version).exists()
    )
