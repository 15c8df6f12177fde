"""A move as a page submits it, over HTTP or over the table's websocket: one path for both.

The transport hands over the submitted fields (``action`` as JSON, ``version``); this reads
them with ``ActionForm``, plays the move through ``move_play`` and turns every
refusal into a message a player can read and the HTTP status it stands for. Both the view
and the consumer then render the board from what this returns, so refusals, stale
versions and hidden cards behave the same on both paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from games import boards
from games.errors import GameError, NotFound
from games.forms.tables import ActionForm
from games.models import Seat, Table
from games.selectors.pace import SEAT_PACE
from games.services.events import Event, changes_from_page, published_after_this
from games.services.moves import move_play


@dataclass(frozen=True)
class MoveOutcome:
    table: Table | None  # None: there is no such table
    seats: list[Seat]
    state: Any = None  # the new state after a move played, else None (read from the table)
    message: str = ""  # why the move was refused; empty when it was played
    status: int = 200


def move_submit(
    *,
    table_id: int,
    user: Any,
    data: Any,
    origin: str = "",
    held: list[tuple[Event, ...]] | None = None,
) -> MoveOutcome:
    """Plays the move in ``data`` for ``user`` at the table, or says why not. Its events go
    out when the move's board is drawn; into ``held`` instead, if given, for the caller to
    publish once it has answered (``events.publish``)."""
    if user is None or not user.is_authenticated:
        return _refused(table_id, _("Sign in to play."), 403)
    form = ActionForm(data)
    if not form.is_valid():
        return _refused(table_id, _("That move could not be read."), 400)
    try:
        with changes_from_page(page_id=origin), published_after_this(later=held):
            result = move_play(
                table_id=table_id,
                user=user,
                action=form.cleaned_data["action"],
                version=form.cleaned_data["version"],
            )
            # The new board's public part, rendered and cached before the others are told.
            boards.public_part(result.table, result.seats, state=result.state)
    except NotFound:
        return MoveOutcome(table=None, seats=[], message=_("There is no such table."), status=404)
    except GameError as exc:
        return _refused(table_id, exc.message, exc.status)
    return MoveOutcome(table=result.table, seats=result.seats, state=result.state)


def _refused(table_id: int, message: str, status: int) -> MoveOutcome:
    """A refusal, with the table as it is now (to show the board beside the reason)."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return MoveOutcome(table=None, seats=[], message=_("There is no such table."), status=404)
    seats = list(table.seats.select_related("user", SEAT_PACE))
    return MoveOutcome(table=table, seats=seats, message=message, status=status)
