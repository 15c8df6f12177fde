"""Players' pace as the periodic job stored it (``games.services.pace``): read here, never
computed on a page's load; and what a page and a join decide from it."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models.fields.related import ForeignObject
from django.utils import formats

from accounts.models import User
from games.models import PlayerPace, Seat

# Fewer moves than this in the window tell too little: no badge, and a table or tournament
# that requires a pace admits the player.
PACE_MIN_MOVES = 20
# "quick": a median move within an hour, under 2 timeouts per 100 moves, nothing abandoned.
QUICK_MEDIAN_SECONDS = 60 * 60
QUICK_TIMEOUTS_PER_100 = 2.0
# "slow": any of a median move over 12 hours, 10 timeouts per 100 moves, 2 games abandoned.
SLOW_MEDIAN_SECONDS = 12 * 60 * 60
SLOW_TIMEOUTS_PER_100 = 10.0
SLOW_ABANDONED = 2
QUICK, STEADY, SLOW = "quick", "steady", "slow"
# A required pace: "fewer than N timeouts per 100 moves", N from 1 to this.
MOST_TIMEOUTS_PER_100 = 100

# What a seats query joins (``select_related``) for ``seats_paced`` to need no query of its own.
SEAT_PACE = "user__pace"

_seat_user = Seat._meta.get_field("user")
_user_pace = PlayerPace._meta.get_field("user")
assert isinstance(_seat_user, ForeignObject) and isinstance(_user_pace, ForeignObject)
_USER_OF_SEAT = _seat_user  # its cache: the seat's user was read with it
_PACE_OF_USER = _user_pace.remote_field  # User.pace's cache: the row was joined (or found none)


def paces_for(user_ids: Iterable[int | None]) -> dict[int, PlayerPace]:
    """The stored rows of these players, by user id: one query (none for no player)."""
    wanted = {user_id for user_id in user_ids if user_id is not None}
    if not wanted:
        return {}
    return {row.user_id: row for row in PlayerPace.objects.filter(user_id__in=wanted)}


def _joined(user: User) -> tuple[bool, PlayerPace | None]:
    """Whether the query that read ``user`` joined their row, and the row (None: they have none)."""
    if not _PACE_OF_USER.is_cached(user):
        return False, None
    row = _PACE_OF_USER.get_cached_value(user)
    return True, row if isinstance(row, PlayerPace) else None


def pace_of(user: User) -> PlayerPace | None:
    """The player's row: the one read with them (``select_related("pace")``), else one query."""
    joined, row = _joined(user)
    if joined:
        return row
    return paces_for([user.pk]).get(user.pk)


def seats_paced(seats: Iterable[Seat]) -> None:
    """Sets ``seat.pace`` on every seat: its player's row, or None (a bot, an empty seat, a
    player without one). No query when the seats were read with ``select_related(SEAT_PACE)``;
    else one for all of them."""
    seats = list(seats)
    missing: list[Seat] = []
    for seat in seats:
        seat.pace = None
        if seat.user_id is None:
            continue
        user = _USER_OF_SEAT.get_cached_value(seat) if _USER_OF_SEAT.is_cached(seat) else None
        joined, row = _joined(user) if isinstance(user, User) else (False, None)
        if joined:
            seat.pace = row
        else:
            missing.append(seat)
    found = paces_for(seat.user_id for seat in missing)
    for seat in missing:
        seat.pace = found.get(seat.user_id) if seat.user_id is not None else None


def pace_badge(pace: PlayerPace | None) -> str | None:
    """``QUICK``, ``STEADY`` or ``SLOW`` for a player's row; None for too few moves to tell."""
    if pace is None or pace.moves < PACE_MIN_MOVES:
        return None
    median = pace.median_seconds
    if (
        pace.timeouts_per_100 >= SLOW_TIMEOUTS_PER_100
        or pace.abandoned >= SLOW_ABANDONED
        or (median is not None and median > SLOW_MEDIAN_SECONDS)
    ):
        return SLOW
    if (
        median is not None
        and median <= QUICK_MEDIAN_SECONDS
        and pace.timeouts_per_100 < QUICK_TIMEOUTS_PER_100
        and pace.abandoned == 0
    ):
        return QUICK
    return STEADY


def pace_admits(pace: PlayerPace | None, max_timeouts_per_100: int | None) -> bool:
    """Whether a player meets a required pace ("fewer than N timeouts per 100 moves"). A player
    with fewer than ``PACE_MIN_MOVES`` moves in the window is admitted: a newcomer is not
    refused for a record too short to judge."""
    if max_timeouts_per_100 is None or pace is None or pace.moves < PACE_MIN_MOVES:
        return True
    return pace.timeouts_per_100 < max_timeouts_per_100


def pace_refused(user: User, max_timeouts_per_100: int | None) -> str | None:
    """The player's timeouts per 100 moves, written for a sentence, if a required pace refuses
    them (``pace_admits``); None if they are welcome. No query without a requirement."""
    if max_timeouts_per_100 is None:
        return None
    pace = pace_of(user)
    if pace is None or pace_admits(pace, max_timeouts_per_100):
        return None
    return formats.number_format(pace.timeouts_per_100, 1)
