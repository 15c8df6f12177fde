"""What a closed account leaves in the tournaments (``accounts.closing``): it is out of each one
it entered, as when it leaves one itself (``entries.tournament_leave``): before the start its
entry goes; in a running one it withdraws, a bot plays its running games out (losses for it) and
its games to come are lost. Its past results stay, so the others' standings stay whole."""

from __future__ import annotations

import logging

from accounts.models import User
from games.errors import GameError
from tournaments.models import Entry, Tournament
from tournaments.services.entries import tournament_leave

logger = logging.getLogger(__name__)


def player_tournaments_close(*, user: User) -> None:
    under_way = [Tournament.Status.SIGNUP, Tournament.Status.RUNNING]
    entered = Entry.objects.filter(
        user=user, withdrawn_at__isnull=True, tournament__status__in=under_way
    ).values_list("tournament_id", flat=True)
    for tournament_id in list(entered):
        try:
            tournament_leave(tournament_id=tournament_id, user=user)
        except GameError as exc:  # it ended meanwhile
            logger.info("closing: tournament %s: %s", tournament_id, exc.message)
