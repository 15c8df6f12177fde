"""The API's reads, each in a fixed number of queries, as plain dicts ready for JSON."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import User
from api.models import AccessToken
from api.tokens import PREFIX, fingerprint
from community.models import Challenge
from community.selectors.challenges import challenges_of, challenges_to_answer
from games.errors import NotFound
from games.models import Seat, Table
from games.rules import get_rules
from games.selectors.tables import TablePage, table_page_for


def token_for_secret(secret: str) -> AccessToken | None:
    """The live token with this secret, its user loaded (one query), or None."""
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return None
    return (
        AccessToken.objects.select_related("user")
        .filter(key_hash=fingerprint(secret), revoked_at__isnull=True, user__is_active=True)
        .first()
    )


def tokens_live(token_ids: Collection[int]) -> set[int]:
    """Which of these tokens still work (one query): a web process asks for all its open
    streams' tokens at once, now and then."""
    return set(
        AccessToken.objects.filter(
            pk__in=list(token_ids), revoked_at__isnull=True, user__is_active=True
        ).values_list("pk", flat=True)
    )


def tokens_of(user: User) -> list[AccessToken]:
    return list(AccessToken.objects.filter(user=user, revoked_at__isnull=True))


def account_data(token: AccessToken) -> dict[str, Any]:
    user = token.user
    return {
        "id": user.pk,
        "username": user.username,
        "name": user.public_name,
        "is_bot": user.is_bot,
        "scopes": token.scope_list,
    }


def table_url(table_id: int) -> str:
    return settings.SITE_URL + reverse("table_detail", args=[table_id])


def tables_waiting(user: User) -> list[dict[str, Any]]:
    """The running tables waiting for ``user``'s move, the longest waiting first (one query)."""
    seats = (
        Seat.objects.filter(user=user, is_waiting=True, table__status=Table.Status.RUNNING)
        .select_related("table")
        .order_by("waiting_since", "pk")
    )
    return [
        {
            "id": seat.table_id,
            "game": seat.table.game,
            "version": seat.table.version,
            "seat": seat.position,
            "deadline": seat.deadline,
            "url": table_url(seat.table_id),
        }
        for seat in seats
    ]


def tables_running(user: User) -> dict[int, dict[str, Any]]:
    """``user``'s running tables, by id, with whether each waits for them (one query)."""
    seats = Seat.objects.filter(user=user, table__status=Table.Status.RUNNING).select_related(
        "table"
    )
    return {
        seat.table_id: {
            "id": seat.table_id,
            "game": seat.table.game,
            "version": seat.table.version,
            "seat": seat.position,
            "my_turn": seat.is_waiting and not seat.replaced_by_bot,
            "turn": seat.turn,  # the seat's count of turns: a new one is a new "turn" line
            "deadline": seat.deadline,
        }
        for seat in seats
    }


def table_data(table_id: int, user: User, seats: list[Seat] | None = None) -> dict[str, Any]:
    """The table as ``user`` may see it: the game's ``view(state, seat)`` for their seat (the
    spectator's, ``seat`` None, if they sit elsewhere or not at all), and nothing more of the
    state. Two queries (the table, its seats)."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        raise NotFound(_("There is no such table."))
    return _page_data(table_page_for(table, user, seats))


def table_with_seats(table_id: int) -> tuple[Table, list[Seat]] | None:
    """The table and its seats, their players loaded (two queries), or None: what
    ``table_data_at`` draws every audience's data from."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return None
    return table, list(table.seats.select_related("user"))


def table_versions(table_ids: Collection[int]) -> dict[int, int]:
    """The version of each of these tables that exists, by id (one query): a web process's
    look at the tables its open streams show, now and then."""
    return dict(Table.objects.filter(pk__in=list(table_ids)).values_list("pk", "version"))


def seat_of(seats: list[Seat], user: User) -> int | None:
    """``user``'s position among ``seats``, or None (a spectator), as ``table_data`` finds it."""
    return next((seat.position for seat in seats if seat.user_id == user.pk), None)


def table_data_at(table: Table, seats: list[Seat], position: int | None) -> dict[str, Any]:
    """``table_data`` for whoever sits at ``position`` (None: a spectator), from a table and
    seats already read: no query. The caller finds the position with ``seat_of`` from these
    same seats, for the reader it sends the data to."""
    view = None
    if table.state is not None:
        rules = get_rules(table.game)
        view = rules.view(rules.from_json(table.state), position)
    return _page_data(TablePage(table=table, seats=seats, position=position, view=view))


def _page_data(page: TablePage) -> dict[str, Any]:
    table = page.table
    return {
        "id": table.pk,
        "game": table.game,
        "status": table.status,
        "version": table.version,
        "seat": page.position,
        "players": page.names,
        "view": page.view,
        "outcome": table.outcome if table.status == Table.Status.FINISHED else None,
        "url": table_url(table.pk),
    }


def challenge_data(challenge: Challenge) -> dict[str, Any]:
    return {
        "id": challenge.pk,
        "game": challenge.game,
        "status": challenge.status,
        "sender": challenge.sender.username,
        "to": [invite.receiver.username for invite in challenge.invites.all()],
        "seats": challenge.num_seats,
        "seconds_per_move": challenge.seconds_per_move,
        "rated": challenge.rated,
        "bot_level": challenge.bot_level,
        "expires_at": challenge.expires_at,
        "table": challenge.table_id,
    }


def challenges_data(user: User) -> dict[str, list[dict[str, Any]]]:
    """The challenges waiting for ``user``'s answer and those they sent (community's selector:
    a fixed number of queries)."""
    found = challenges_of(user)
    return {
        "incoming": [challenge_data(c) for c in found.to_answer],
        "outgoing": [challenge_data(c) for c in found.sent],
    }


def challenge_by_id(challenge_id: int) -> dict[str, Any]:
    found = (
        Challenge.objects.select_related("sender")
        .prefetch_related("invites__receiver")
        .filter(pk=challenge_id)
        .first()
    )
    if found is None:
        raise NotFound(_("There is no such challenge."))
    return challenge_data(found)


def incoming_challenges(user: User) -> dict[int, dict[str, Any]]:
    """The challenges waiting for ``user``'s answer, by id (two queries)."""
    return {c.pk: challenge_data(c) for c in challenges_to_answer(user)}
