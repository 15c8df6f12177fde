"""Every write to a table goes through one of these functions.

Each runs in one transaction with the table row locked (``select_for_update``),
so two requests for the same table are handled one at a time; a move is
checked against the version the player saw, applied once, appended to the log.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.catalog import playable_rules
from games.errors import Conflict, Forbidden, GameError, NotFound
from games.models import Move, Seat, Table
from games.rules import IllegalAction, Rules, get_rules
from games.time_controls import TIME_PER_MOVE_CHOICES

SEED_BITS = 62


def rules_for(table: Table) -> Rules:
    return get_rules(table.game)


def _locked_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update().get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound(_("There is no such table.")) from None


@transaction.atomic
def table_create(
    *,
    user: User,
    game: str,
    num_seats: int,
    seconds_per_move: int,
    options: dict[str, Any] | None = None,
) -> Table:
    """Opens a table and seats its creator at the first seat."""
    rules = playable_rules(game)
    if rules is None:
        raise GameError(_("There is no such game."))
    if not rules.min_players <= num_seats <= rules.max_players:
        raise GameError(_("This game cannot be played with that many players."))
    if seconds_per_move not in dict(TIME_PER_MOVE_CHOICES):
        raise GameError(_("Choose one of the offered times per move."))
    table = Table.objects.create(
        game=game,
        num_seats=num_seats,
        seconds_per_move=seconds_per_move,
        options={**rules.default_options, **(options or {})},
        created_by=user,
    )
    Seat.objects.create(table=table, position=0, user=user)
    if num_seats == 1:
        _start(table)
    return table


@transaction.atomic
def table_join(*, table_id: int, user: User) -> Table:
    """Seats ``user`` at the first free seat; the game starts when the table is full."""
    table = _locked_table(table_id)
    seats = list(table.seats.all())
    if any(seat.user_id == user.pk for seat in seats):
        return table
    if not table.is_open:
        raise Conflict(_("This table is no longer taking players."))
    taken = {seat.position for seat in seats}
    free = [pos for pos in range(table.num_seats) if pos not in taken]
    if not free:
        raise Conflict(_("This table is full."))
    try:
        with transaction.atomic():
            Seat.objects.create(table=table, position=free[0], user=user)
    except IntegrityError:
        raise Conflict(_("That seat was just taken.")) from None
    if len(free) == 1:
        _start(table)
    else:
        _bump(table)
    return table


@transaction.atomic
def table_leave(*, table_id: int, user: User) -> Table:
    """Gives up a seat before the game starts. The creator aborts instead."""
    table = _locked_table(table_id)
    if not table.is_open:
        raise Conflict(_("The game has started; you cannot leave it now."))
    if table.created_by_id == user.pk:
        raise Forbidden(_("You opened this table: abort it instead of leaving."))
    deleted, _rows = table.seats.filter(user=user).delete()
    if not deleted:
        raise Forbidden(_("You are not seated at this table."))
    _bump(table)
    return table


@transaction.atomic
def table_abort(*, table_id: int, user: User) -> Table:
    """The creator cancels a table that has not started."""
    table = _locked_table(table_id)
    if table.created_by_id != user.pk:
        raise Forbidden(_("Only the player who opened this table can abort it."))
    if not table.is_open:
        raise Conflict(_("Only a table that has not started can be aborted."))
    table.status = Table.Status.ABORTED
    table.finished_at = timezone.now()
    table.version += 1
    table.save(update_fields=["status", "finished_at", "version"])
    return table


def _bump(table: Table) -> None:
    table.version += 1
    table.save(update_fields=["version"])


def _start(table: Table) -> None:
    rules = rules_for(table)
    table.seed = secrets.randbits(SEED_BITS)
    state = rules.setup(table.num_seats, table.seed, table.options)
    table.status = Table.Status.RUNNING
    table.started_at = timezone.now()
    _store(table, rules, state)


def _store(table: Table, rules: Rules, state: Any) -> None:
    """Saves a new state and everything derived from it: version, waiting seats, outcome."""
    now = timezone.now()
    table.state = rules.to_json(state)
    table.version += 1
    outcome = rules.outcome(state)
    waiting = set(rules.waiting_seats(state)) if outcome is None else set()
    fields = ["state", "version", "status", "started_at", "seed"]
    if outcome is not None:
        table.status = Table.Status.FINISHED
        table.finished_at = now
        table.outcome = outcome.to_json()
        fields += ["finished_at", "outcome"]
    table.save(update_fields=fields)

    for seat in table.seats.all():
        changed = False
        if (seat.position in waiting) != seat.is_waiting:
            seat.is_waiting = seat.position in waiting
            seat.waiting_since = now if seat.is_waiting else None
            changed = True
        if outcome is not None:
            seat.rank = outcome.ranks[seat.position]
            seat.score = outcome.scores[seat.position]
            changed = True
        if changed:
            seat.save(update_fields=["is_waiting", "waiting_since", "rank", "score"])


@dataclass(frozen=True)
class MoveResult:
    table: Table
    move: Move


@transaction.atomic
def move_play(
    *,
    table_id: int,
    user: User,
    action: Any,
    version: int | None,
    by: str = Move.By.PLAYER,
) -> MoveResult:
    """Plays ``action`` for ``user``'s seat, if the table is still at ``version``.

    A stale or repeated submission raises ``Conflict`` and changes nothing.
    """
    table = _locked_table(table_id)
    seat = table.seats.filter(user=user).first() if user.is_authenticated else None
    if seat is None:
        raise Forbidden(_("You are not seated at this table."))
    if not table.is_running:
        raise Conflict(_("This game is not running."))
    if version is not None and version != table.version:
        raise Conflict(_("The game moved on before your move arrived. Here is the board now."))
    rules = rules_for(table)
    state = rules.from_json(table.state)
    try:
        new_state = rules.apply(state, seat.position, action)
    except IllegalAction as exc:
        raise GameError(_(exc.message)) from None
    seq = table.moves.count() + 1
    move = Move.objects.create(table=table, seq=seq, position=seat.position, action=action, by=by)
    _store(table, rules, new_state)
    return MoveResult(table=table, move=move)


def replay_state(table: Table) -> Any:
    """The state rebuilt from the seed and the move log (for checks and replays)."""
    rules = rules_for(table)
    state = rules.setup(table.num_seats, table.seed, table.options)
    for move in table.moves.order_by("seq"):
        state = rules.apply(state, move.position, move.action)
    return state
