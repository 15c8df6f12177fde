"""Tables: opening one, taking and leaving seats, seating bots, aborting, playing again.

Each runs in one transaction with the table row locked; a table that fills up starts its
game here, and the first state is stored by ``games.services.moves.state_store``.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.relations import barred_among
from games.bots import BOT_LEVELS
from games.catalog import playable_rules
from games.errors import Conflict, Forbidden, GameError
from games.models import Seat, Table
from games.selectors.pace import MOST_TIMEOUTS_PER_100, pace_refused
from games.selectors.rematches import REMATCH_AGE
from games.services import events
from games.services.moves import state_store
from games.services.table_rows import table_locked, table_rules
from games.time_controls import TIME_PER_MOVE_CHOICES

SEED_BITS = 62


def table_settings_checked(
    *, game: str, num_seats: int, seconds_per_move: int, options: dict[str, Any] | None
) -> dict[str, Any]:
    """The table's whole options (the game's defaults, then ``options``), or a ``GameError``
    that says what a table of ``game`` cannot have: for every way a table is opened (the lobby,
    a challenge)."""
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
    return options


def pace_requirement_checked(*, max_timeouts_per_100: int | None) -> int | None:
    """A required pace as a table or a tournament stores it, or a ``GameError``: None (none
    required) or a whole number of timeouts per 100 moves from 1 to ``MOST_TIMEOUTS_PER_100``."""
    if max_timeouts_per_100 is None:
        return None
    if not 1 <= max_timeouts_per_100 <= MOST_TIMEOUTS_PER_100:
        raise GameError(
            _("Require a pace of 1 to %(most)d timeouts per 100 moves.")
            % {"most": MOST_TIMEOUTS_PER_100}
        )
    return max_timeouts_per_100


@transaction.atomic
def table_create(
    *,
    user: User,
    game: str,
    num_seats: int,
    seconds_per_move: int,
    options: dict[str, Any] | None = None,
    rated: bool = True,
    pace_max_timeouts_per_100: int | None = None,
) -> Table:
    """Opens a table and seats its creator at the first seat. A game played alone is against
    the game, never rated (``rated`` is ignored for one seat). ``pace_max_timeouts_per_100``:
    who joins must have fewer timeouts per 100 moves (``table_join``); the creator sets it."""
    options = table_settings_checked(
        game=game, num_seats=num_seats, seconds_per_move=seconds_per_move, options=options
    )
    table = Table.objects.create(
        game=game,
        num_seats=num_seats,
        seconds_per_move=seconds_per_move,
        options=options,
        created_by=user,
        rated=rated and num_seats > 1,
        pace_max_timeouts_per_100=pace_requirement_checked(
            max_timeouts_per_100=pace_max_timeouts_per_100
        ),
    )
    Seat.objects.create(table=table, position=0, user=user)
    if num_seats == 1:
        _start(table)
    return table


@transaction.atomic
def table_create_seated(
    *,
    users: Sequence[User],
    game: str,
    seconds_per_move: int,
    options: dict[str, Any] | None = None,
    rated: bool = True,
) -> Table:
    """A table whose seats are taken already, ``users`` in seat order, and its game started:
    a pairing that the players agreed to by entering (a tournament's round). The first player
    is its creator; no lobby lists it. Blocks are the caller's to weigh: it chose the pairing."""
    if len(set(user.pk for user in users)) != len(users):
        raise GameError(_("A player sits once at a table."))
    options = table_settings_checked(
        game=game, num_seats=len(users), seconds_per_move=seconds_per_move, options=options
    )
    table = Table.objects.create(
        game=game,
        num_seats=len(users),
        seconds_per_move=seconds_per_move,
        options=options,
        created_by=users[0],
        rated=rated and len(users) > 1,
    )
    Seat.objects.bulk_create(
        [Seat(table=table, position=position, user=user) for position, user in enumerate(users)]
    )
    _start(table)
    return table


@transaction.atomic
def table_join(*, table_id: int, user: User) -> Table:
    """Seats ``user`` at the first free seat; the game starts when the table is full. A table
    that requires a pace refuses a player whose stored pace falls short (``_refuse_slow``)."""
    table = table_locked(table_id=table_id)
    seats = list(table.seats.all())
    if any(seat.user_id == user.pk for seat in seats):
        return table
    if not table.is_open:
        raise Conflict(_("This table is no longer taking players."))
    if table.rematch_of_id is not None:
        raise Forbidden(_("This table is a rematch for the players of the game before it."))
    taken = {seat.position for seat in seats}
    free = [pos for pos in range(table.num_seats) if pos not in taken]
    if not free:
        raise Conflict(_("This table is full."))
    _refuse_barred(user, seats)
    _refuse_slow(table, user)
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
    table = table_locked(table_id=table_id)
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
    table = table_locked(table_id=table_id)
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
    table = table_locked(table_id=table_id)
    if table.created_by_id != user.pk:
        raise Forbidden(_("Only the player who opened this table can abort it."))
    if not table.is_open:
        raise Conflict(_("Only a table that has not started can be aborted."))
    table.status = Table.Status.ABORTED
    table.finished_at = timezone.now()
    table.save(update_fields=["status", "finished_at"])
    _bump(table)
    return table


REMATCH_HOURS = REMATCH_AGE // dt.timedelta(hours=1)  # an offer nobody declined is withdrawn
REMATCH_OFFERS_PER_MINUTE = 2  # offers at one finished table


def _rematch_expired(table: Table, now: dt.datetime | None = None) -> bool:
    """Whether a rematch offer still waiting for its players has run out of time."""
    now = now or timezone.now()
    return table.is_open and table.created_at <= now - REMATCH_AGE


def _moved_on(position: int, num_seats: int) -> int:
    """A rematch's seat: the first seat moved on by one, every other seat with it."""
    return (position + 1) % num_seats


@transaction.atomic
def table_rematch(*, table_id: int, user: User) -> Table:
    """ "Rematch" at a finished table: an offer of the next table of the same game (options,
    seats, time per move, rated or not) to the same people, each seat moved on by one (who sat
    first sits second), the bots where bots sat moved on too; returns it.

    The first player who asks offers it, seated (a bot accepts at once: with bots alone it starts
    at once), and the finished table remembers it: its version moves on, so that its open pages
    offer the others "Accept the rematch" or "Decline". Another player's ask accepts: it seats
    them there, and the game starts when everyone has. The offer is nobody else's (not in the
    lobby, no other may sit), is withdrawn by a decline (``table_rematch_decline``) or after
    ``REMATCH_HOURS``, and a table takes at most ``REMATCH_OFFERS_PER_MINUTE`` offers a minute.
    """
    table = table_locked(table_id=table_id)
    seats = list(table.seats.all())
    mine = next((seat for seat in seats if seat.user_id == user.pk), None)
    if mine is None:
        raise Forbidden(_("Only the players of this game can play it again."))
    if not table.is_finished:
        raise Conflict(_("This game is not over yet."))
    if table.next_table_id is not None:
        following = table_locked(
            table_id=table.next_table_id
        )  # always the old table first, then its next
        if _rematch_expired(following):
            _withdraw(following)
        elif following.status != Table.Status.ABORTED:
            return _rematch_join(following, user, _moved_on(mine.position, table.num_seats))
    if playable_rules(table.game) is None:
        raise GameError(_("There is no such game."))
    a_minute_ago = timezone.now() - dt.timedelta(minutes=1)
    if table.rematch_offers.filter(created_at__gte=a_minute_ago).count() >= (
        REMATCH_OFFERS_PER_MINUTE
    ):
        raise Conflict(_("Two rematches were offered here within a minute: wait a moment."))
    _refuse_barred(user, seats)
    following = Table.objects.create(
        game=table.game,
        options=table.options,
        num_seats=table.num_seats,
        seconds_per_move=table.seconds_per_move,
        rated=table.rated,
        max_timeouts=table.max_timeouts,
        created_by=user,
        rematch_of=table,
    )
    n = table.num_seats
    bots = [seat for seat in seats if seat.bot_level and seat.user_id is None]
    Seat.objects.bulk_create(
        [
            Seat(table=following, position=_moved_on(mine.position, n), user=user),
            *(
                Seat(table=following, position=_moved_on(b.position, n), bot_level=b.bot_level)
                for b in bots
            ),
        ]
    )
    if 1 + len(bots) == following.num_seats:
        _start(following)
    table.next_table = following
    table.version += 1  # its open pages now offer the others "Accept the rematch"
    table.save(update_fields=["next_table", "version"])
    events.publish_on_commit(
        events=[
            events.table_changed(table_id=table.pk, version=table.version),
            events.RematchOffered(table.pk, following.pk, user.pk),
        ]
    )
    return following


@transaction.atomic
def table_rematch_decline(*, table_id: int, user: User) -> Table:
    """A player of the finished table declines its rematch offer: the offer is withdrawn for
    everyone (its table aborted); their pages learn of it."""
    table = table_locked(table_id=table_id)
    if not table.seats.filter(user=user).exists():
        raise Forbidden(_("Only the players of this game can play it again."))
    following = table_locked(table_id=table.next_table_id) if table.next_table_id else None
    if following is None or not following.is_open or _rematch_expired(following):
        raise Conflict(_("No rematch is on offer here."))
    _withdraw(following)
    _bump(table)
    return table


def _withdraw(offer: Table) -> None:
    offer.status = Table.Status.ABORTED
    offer.finished_at = timezone.now()
    offer.save(update_fields=["status", "finished_at"])
    _bump(offer)


def _rematch_join(table: Table, user: User, position: int) -> Table:
    """Seats ``user`` at the locked rematch ``table`` at their seat moved on by one (or the
    first free one); the game starts when the table is full."""
    seats = list(table.seats.all())
    if any(seat.user_id == user.pk for seat in seats):
        return table
    taken = {seat.position for seat in seats}
    free = [pos for pos in range(table.num_seats) if pos not in taken]
    if not table.is_open or not free:
        raise Conflict(_("The new table is full: its game started without you."))
    _refuse_barred(user, seats)
    Seat.objects.create(table=table, position=position if position in free else free[0], user=user)
    if len(free) == 1:
        _start(table)
    else:
        _bump(table)
    return table


def _refuse_barred(user: User, seats: list[Seat]) -> None:
    """A block's "no games" switch, either way round: nobody is seated with a player they
    blocked, or who blocked them (the blocked player is not told who)."""
    barred = barred_among(user.pk, [seat.user_id for seat in seats if seat.user_id is not None])
    if barred.by_me:
        raise Forbidden(_("You blocked a player at this table: you cannot play with them."))
    if barred:
        raise Forbidden(_("This table is not open to you."))


def _refuse_slow(table: Table, user: User) -> None:
    """The pace its creator required, read from the player's stored row (no query without a
    requirement). A player with fewer than ``PACE_MIN_MOVES`` moves in the window is admitted
    (``selectors.pace.pace_admits``): too short a record to judge."""
    limit = table.pace_max_timeouts_per_100
    yours = pace_refused(user, limit)
    if yours is not None:
        raise Forbidden(
            _(
                "This table is open to players with fewer than %(limit)d timeouts per 100 moves;"
                " you had %(yours)s over the last 90 days."
            )
            % {"limit": limit, "yours": yours}
        )


def _bump(table: Table) -> None:
    table.version += 1
    table.save(update_fields=["version"])
    events.publish_on_commit(
        events=[events.table_changed(table_id=table.pk, version=table.version)]
    )


def _start(table: Table) -> None:
    rules = table_rules(table=table)
    table.seed = secrets.randbits(SEED_BITS)
    state = rules.setup(table.num_seats, table.seed, table.options)
    table.status = Table.Status.RUNNING
    table.started_at = timezone.now()
    events.publish_on_commit(events=state_store(table=table, rules=rules, state=state))
