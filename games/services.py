"""Every write to a table goes through one of these functions.

Each runs in one transaction with the table row locked (``select_for_update``),
so two requests for the same table are handled one at a time; a move is
checked against the version the player saw, applied once, appended to the log.
Each change returns its events (``games.events``), published only after the commit:
the live layer and the jobs subscribe to them, so nothing here imports either.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User, Vacation
from games import clocks, events, ratings
from games.bots import BOT_LEVELS
from games.catalog import playable_rules
from games.errors import Conflict, Forbidden, GameError, NotFound
from games.events import Event
from games.models import Move, Seat, Table
from games.rules import IllegalAction, Rules, get_rules
from games.time_controls import TIME_PER_MOVE_CHOICES

SEED_BITS = 62


def rules_for(table: Table) -> Rules:
    return get_rules(table.game)


def locked_table(table_id: int) -> Table:
    try:
        return Table.objects.select_for_update(of=("self",)).get(pk=table_id)
    except Table.DoesNotExist:
        raise NotFound(_("There is no such table.")) from None


def table_seats(table: Table) -> list[Seat]:
    """The table's seats with their users, each marked ``on_vacation`` (its player is away now).

    One query: a turn that starts for a player on vacation keeps its clock standing.
    """
    away = Vacation.objects.filter(
        user_id=OuterRef("user_id"), ended_at__isnull=True, starts_at__lte=timezone.now()
    )
    return list(table.seats.select_related("user").annotate(on_vacation=Exists(away)))


@transaction.atomic
def table_create(
    *,
    user: User,
    game: str,
    num_seats: int,
    seconds_per_move: int,
    options: dict[str, Any] | None = None,
    rated: bool = True,
) -> Table:
    """Opens a table and seats its creator at the first seat."""
    rules = playable_rules(game)
    if rules is None:
        raise GameError(_("There is no such game."))
    if not rules.min_players <= num_seats <= rules.max_players:
        raise GameError(_("This game cannot be played with that many players."))
    if seconds_per_move not in dict(TIME_PER_MOVE_CHOICES):
        raise GameError(_("Choose one of the offered times per move."))
    options = {**rules.default_options, **(options or {})}
    try:
        rules.setup(num_seats, 0, options)  # refuses unknown or impossible options now, not later
    except (ValueError, TypeError, KeyError):
        raise GameError(_("Those table options are not valid for this game.")) from None
    table = Table.objects.create(
        game=game,
        num_seats=num_seats,
        seconds_per_move=seconds_per_move,
        options=options,
        created_by=user,
        rated=rated,
    )
    Seat.objects.create(table=table, position=0, user=user)
    if num_seats == 1:
        _start(table)
    return table


@transaction.atomic
def table_join(*, table_id: int, user: User) -> Table:
    """Seats ``user`` at the first free seat; the game starts when the table is full."""
    table = locked_table(table_id)
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
def table_seat_bot(*, table_id: int, user: User, level: str) -> Table:
    """The creator fills the first free seat with a bot; the game starts when the table is full."""
    if level not in BOT_LEVELS:
        raise GameError(_("Choose one of the offered bot levels."))
    table = locked_table(table_id)
    if table.created_by_id != user.pk:
        raise Forbidden(_("Only the player who opened this table can invite bots."))
    if not table.is_open:
        raise Conflict(_("This table is no longer taking players."))
    taken = set(table.seats.values_list("position", flat=True))
    free = [pos for pos in range(table.num_seats) if pos not in taken]
    if not free:
        raise Conflict(_("This table is full."))
    Seat.objects.create(table=table, position=free[0], bot_level=level)
    if len(free) == 1:
        _start(table)
    else:
        _bump(table)
    return table


@transaction.atomic
def table_create_against_bots(
    *, user: User, game: str, num_seats: int, level: str, seconds_per_move: int
) -> Table:
    """Opens a table and fills every other seat with bots: the game starts at once."""
    table = table_create(
        user=user, game=game, num_seats=num_seats, seconds_per_move=seconds_per_move, rated=False
    )
    for _seat in range(num_seats - 1):
        table_seat_bot(table_id=table.pk, user=user, level=level)
    table.refresh_from_db()
    return table


@transaction.atomic
def table_leave(*, table_id: int, user: User) -> Table:
    """Gives up a seat before the game starts. The creator aborts instead."""
    table = locked_table(table_id)
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
    table = locked_table(table_id)
    if table.created_by_id != user.pk:
        raise Forbidden(_("Only the player who opened this table can abort it."))
    if not table.is_open:
        raise Conflict(_("Only a table that has not started can be aborted."))
    table.status = Table.Status.ABORTED
    table.finished_at = timezone.now()
    table.save(update_fields=["status", "finished_at"])
    _bump(table)
    return table


def _bump(table: Table) -> None:
    table.version += 1
    table.save(update_fields=["version"])
    events.publish_on_commit([events.table_changed(table.pk, table.version)])


def _start(table: Table) -> None:
    rules = rules_for(table)
    table.seed = secrets.randbits(SEED_BITS)
    state = rules.setup(table.num_seats, table.seed, table.options)
    table.status = Table.Status.RUNNING
    table.started_at = timezone.now()
    events.publish_on_commit(store_state(table, rules, state))


def store_state(
    table: Table,
    rules: Rules,
    state: Any,
    mover: int | None = None,
    seats: list[Seat] | None = None,
) -> list[Event]:
    """Saves a new state and all that follows from it (version, clocks, outcome) and returns
    the events of the change, for the caller to publish.

    The caller holds the table's row lock (and may pass ``table_seats(table)`` to spare a
    query). A ``mover`` still waited for after its move (a solo game, or two actions in a
    row) starts a new turn with a fresh clock.
    """
    now = timezone.now()
    table.state = rules.to_json(state)
    table.version += 1
    outcome = rules.outcome(state)
    waiting = set(rules.waiting_seats(state)) if outcome is None else set()
    fields = ["state", "version", "moves_played", "status", "started_at", "seed"]
    if seats is None:
        seats = table_seats(table)
    if outcome is not None:
        table.status = Table.Status.FINISHED
        table.finished_at = now
        table.outcome = _with_forfeits(outcome.to_json(), seats)
        fields += ["finished_at", "outcome"]
        if ratings.counts_for_ratings(table, seats):
            ratings.ratings_settle(table=table, seats=seats)
    table.save(update_fields=fields)

    def starts_turn(seat: Seat) -> bool:
        return seat.position in waiting and (not seat.is_waiting or seat.position == mover)

    changed: list[Seat] = []
    started: list[int] = []
    for seat in seats:
        if starts_turn(seat):
            clocks.start_turn(seat, table, now, on_vacation=getattr(seat, "on_vacation", False))
            started.append(seat.position)
        elif seat.position not in waiting and seat.is_waiting:
            clocks.stop_turn(seat)
        elif outcome is None:
            continue
        if outcome is not None:
            seat.rank = table.outcome["ranks"][seat.position]
            seat.score = table.outcome["scores"][seat.position]
        changed.append(seat)
    fields_changed = [*clocks.CLOCK_FIELDS, *(["rank", "score"] if outcome is not None else [])]
    if len(changed) > 2:  # one UPDATE for them all (it costs more CPU than two simple ones)
        Seat.objects.bulk_update(changed, fields_changed)
    else:
        for seat in changed:
            seat.save(update_fields=fields_changed)

    found: list[Event] = [events.table_changed(table.pk, table.version)]
    if started:
        found.append(events.TurnStarted(table.pk, table.version, tuple(started)))
    if outcome is not None:
        found.append(events.GameEnded(table.pk, table.version))
    if any(seat.is_bot for seat in seats if seat.position in waiting):
        found.append(events.BotTurnDue(table.pk, table.version))
    return found


def _with_forfeits(outcome: dict[str, Any], seats: list[Seat]) -> dict[str, Any]:
    """Players replaced by a bot after too many timeouts are ranked last, below everyone."""
    lost = sorted(s.position for s in seats if s.replaced_by_bot and s.user_id)
    if not lost:
        return outcome
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


def apply_move(
    table: Table, seat: Seat, action: Any, by: str, seats: list[Seat] | None = None
) -> MoveResult:
    """Applies one action for ``seat`` at a table from ``locked_table``, stores it all and
    publishes its events on commit. ``seats`` (from ``table_seats``) spares a query."""
    rules = rules_for(table)
    state = rules.from_json(table.state)
    try:
        new_state = rules.apply(state, seat.position, action)
    except IllegalAction as exc:
        raise GameError(_(exc.message)) from None
    if seats is None:
        seats = table_seats(table)
    table.moves_played += 1
    move = Move(table=table, seq=table.moves_played, position=seat.position, action=action, by=by)
    found = store_state(table, rules, new_state, mover=seat.position, seats=seats)
    move.version = table.version
    move.save()
    events.publish_on_commit(found)
    return MoveResult(table=table, move=move, seats=seats, events=found, state=new_state)


@transaction.atomic
def move_play(*, table_id: int, user: User, action: Any, version: int | None) -> MoveResult:
    """Plays ``action`` for ``user``'s seat, if the table is still at ``version``.

    A stale or repeated submission raises ``Conflict`` and changes nothing.
    """
    table = locked_table(table_id)
    seats = table_seats(table)
    seat = next((s for s in seats if user.is_authenticated and s.user_id == user.pk), None)
    if seat is None:
        raise Forbidden(_("You are not seated at this table."))
    if not table.is_running:
        raise Conflict(_("This game is not running."))
    if version is not None and version != table.version and _moved_since(table, seat, version):
        raise Conflict(_("The game moved on before your move arrived. Here is the board now."))
    if seat.replaced_by_bot:
        raise Forbidden(_("A bot plays this seat now: you ran out of time too often."))
    return apply_move(table, seat, action, Move.By.PLAYER, seats=seats)


def _moved_since(table: Table, seat: Seat, version: int) -> bool:
    """Whether this seat has moved since the board it chose on (a repeat, or another tab).

    Others moving meanwhile does not make a choice stale: in a simultaneous phase
    everyone acts at once, and whatever is no longer legal is refused by the rules.
    """
    return (
        version > table.version
        or table.moves.filter(position=seat.position, version__gt=version).exists()
    )


def replay_state(table: Table) -> Any:
    """The state rebuilt from the seed and the move log (for checks and replays)."""
    rules = rules_for(table)
    state = rules.setup(table.num_seats, table.seed, table.options)
    for move in table.moves.order_by("seq"):
        state = rules.apply(state, move.position, move.action)
    return state
