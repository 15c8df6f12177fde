"""The JSON endpoints: thin, each a selector or a service of another app.

Every answer is JSON, refusals too (``api.errors``); the schema is at /api/openapi.json and
rendered at /api/docs.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja import NinjaAPI

from api import selectors, services, streams
from api.auth import TokenAuth, TokenThrottle, scope_required
from api.errors import handlers_install
from api.models import Scope
from api.schemas import (
    Account,
    ChallengeIn,
    ChallengeOut,
    Challenges,
    DeclineIn,
    Error,
    MoveIn,
    TableView,
    WaitingTable,
)
from community.services import challenges
from games.errors import NotFound
from games.services.moves import move_play

api = NinjaAPI(
    title="Card Tables API",
    version="1",
    description=(
        "Play and follow your games from a program. Send a personal access token (made on "
        "the site's API settings page) as `Authorization: Bearer <token>`. Every refusal is "
        '`{"error": "..."}` with a 4xx status; 429 comes with `Retry-After`. The two streams '
        "are NDJSON: one JSON object a line."
    ),
    urls_namespace="api",
    auth=TokenAuth(),
    throttle=[TokenThrottle()],
    docs_url="/docs",
    openapi_url="/openapi.json",
)
handlers_install(api)

REFUSALS: dict[int, type] = {400: Error, 401: Error, 403: Error, 404: Error, 409: Error, 429: Error}


@api.get("/account", response={200: Account, **REFUSALS}, tags=["account"])
def account(request: HttpRequest) -> dict[str, Any]:
    """The account the token belongs to."""
    return selectors.account_data(scope_required(request, Scope.READ))


@api.post("/account/bot", response={200: Account, **REFUSALS}, tags=["account"])
def account_bot(request: HttpRequest) -> dict[str, Any]:
    """Makes this account a bot account, for good: only one that never sat at a table."""
    token = scope_required(request, Scope.PLAY)
    services.bot_upgrade(user=token.user)
    return selectors.account_data(token)


@api.get("/tables/waiting", response={200: list[WaitingTable], **REFUSALS}, tags=["tables"])
def tables_waiting(request: HttpRequest) -> list[dict[str, Any]]:
    """The running tables waiting for your move, the longest waiting first."""
    return selectors.tables_waiting(scope_required(request, Scope.READ).user)


@api.get("/tables/{table_id}", response={200: TableView, **REFUSALS}, tags=["tables"])
def table(request: HttpRequest, table_id: int) -> dict[str, Any]:
    """A table as you may see it: your seat's view, or a spectator's."""
    return selectors.table_data(table_id, scope_required(request, Scope.READ).user)


@api.post("/tables/{table_id}/moves", response={200: TableView, **REFUSALS}, tags=["tables"])
def table_move(request: HttpRequest, table_id: int, move: MoveIn) -> dict[str, Any]:
    """Plays an action of your seat, chosen on the table's ``version``: a stale one is a 409."""
    user = scope_required(request, Scope.PLAY).user
    result = move_play(table_id=table_id, user=user, action=move.action, version=move.version)
    return selectors.table_data(table_id, user, seats=result.seats)


@api.get("/challenges", response={200: Challenges, **REFUSALS}, tags=["challenges"])
def challenge_list(request: HttpRequest) -> dict[str, Any]:
    """The challenges waiting for your answer, and yours waiting for others'."""
    return selectors.challenges_data(scope_required(request, Scope.READ).user)


@api.post("/challenges", response={200: ChallengeOut, **REFUSALS}, tags=["challenges"])
def challenge_create(request: HttpRequest, challenge: ChallengeIn) -> dict[str, Any]:
    """Challenges players to a table of a game; the open seats go to bots of ``bot_level``."""
    sender = scope_required(request, Scope.CHALLENGE).user
    names = list(dict.fromkeys(challenge.players))[:10]
    found = {
        user.username.casefold(): user
        for user in get_user_model().objects.filter(username__in=names, is_active=True)
    }
    missing = [name for name in names if name.casefold() not in found]
    if missing:
        raise NotFound(_("There is no player %(name)s.") % {"name": missing[0]})
    receivers = [found[name.casefold()] for name in names]
    made = challenges.challenge_create(
        sender=sender,
        receivers=receivers,
        game=challenge.game,
        num_seats=challenge.seats or len(receivers) + 1,
        seconds_per_move=challenge.seconds_per_move,
        rated=challenge.rated,
        options=challenge.options,
        bot_level=challenge.bot_level,
    )
    return _challenge(made.pk)


@api.post(
    "/challenges/{challenge_id}/accept",
    response={200: ChallengeOut, **REFUSALS},
    tags=["challenges"],
)
def challenge_accept(request: HttpRequest, challenge_id: int) -> dict[str, Any]:
    """Accepts a challenge; once all have, its table starts (``table`` says which)."""
    user = scope_required(request, Scope.CHALLENGE).user
    challenges.challenge_accept(challenge_id=challenge_id, user=user)
    return _challenge(challenge_id)


@api.post(
    "/challenges/{challenge_id}/decline",
    response={200: ChallengeOut, **REFUSALS},
    tags=["challenges"],
)
def challenge_decline(
    request: HttpRequest, challenge_id: int, answer: DeclineIn | None = None
) -> dict[str, Any]:
    """Declines a challenge, with a reason: generic, later, too_fast, too_slow, game, rated or
    friendly."""
    user = scope_required(request, Scope.CHALLENGE).user
    reason = answer.reason if answer is not None else "generic"
    challenges.challenge_decline(challenge_id=challenge_id, user=user, reason=reason)
    return _challenge(challenge_id)


def _challenge(challenge_id: int) -> dict[str, Any]:
    return selectors.challenge_by_id(challenge_id)


streams.routes_add(api)
