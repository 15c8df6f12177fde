"""The API's writes: tokens made and revoked, an account made a bot, the rating opt-in."""

from __future__ import annotations

import datetime as dt
from typing import Any

from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.export import when
from accounts.models import User
from api.models import AccessToken, Scope
from api.tokens import fingerprint, secret_new, token_group
from config import layer_sends, redis_guard
from games.errors import Conflict, GameError
from games.models import Seat

TOKENS_PER_PLAYER = 20
USED_EVERY = dt.timedelta(minutes=1)  # last_used_at is written at most once a minute
REVOKED = "token.revoked"


def token_make(*, user: User, name: str, scopes: list[str]) -> tuple[AccessToken, str]:
    """A new token and its secret, which the caller shows once: only its hash is stored."""
    chosen = [scope for scope in Scope.values if scope in scopes]
    if not chosen:
        raise GameError(_("Choose at least one scope."))
    if not name.strip():
        raise GameError(_("Give the token a name."))
    if AccessToken.objects.filter(user=user, revoked_at__isnull=True).count() >= TOKENS_PER_PLAYER:
        raise Conflict(
            _("You have %(count)d tokens: revoke one first.") % {"count": TOKENS_PER_PLAYER}
        )
    secret = secret_new()
    token = AccessToken.objects.create(
        user=user,
        name=name.strip()[:60],
        key_hash=fingerprint(secret),
        prefix=secret[:8],
        scopes=" ".join(chosen),
    )
    return token, secret


def token_revoke(*, user: User, token_id: int) -> bool:
    """Revokes one of ``user``'s tokens; its open streams are told after the commit (and close
    within a few seconds even if that message is lost: they check the token themselves)."""
    revoked = AccessToken.objects.filter(pk=token_id, user=user, revoked_at__isnull=True).update(
        revoked_at=timezone.now()
    )
    if revoked:
        transaction.on_commit(lambda: _tell_streams(token_id))
    return bool(revoked)


def _tell_streams(token_id: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    send = layer_sends.sender(layer)
    redis_guard.guarded(redis_guard.layer_url(), send, token_group(token_id), {"type": REVOKED})


def token_used(*, token: AccessToken, now: dt.datetime | None = None) -> None:
    """Notes when the token was last used, at most once a minute (not a write per move)."""
    now = now or timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= USED_EVERY:
        AccessToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now


def bot_upgrade(*, user: User) -> User:
    """Makes ``user`` a bot account, for good. Only an account that never sat at a table may:
    its past games were a person's."""
    if user.is_bot:
        return user
    if Seat.objects.filter(user=user).exists():
        raise Conflict(_("Only an account that has never played can become a bot account."))
    user.is_bot = True
    user.save(update_fields=["is_bot"])
    return user


def rated_against_bots_set(*, user: User, rated: bool) -> None:
    user.rated_against_bots = rated
    user.save(update_fields=["rated_against_bots"])


def tokens_close(*, user: User) -> None:
    """Accounts' closing step: every token of a closed account stops at once."""
    for token_id in AccessToken.objects.filter(user=user, revoked_at__isnull=True).values_list(
        "pk", flat=True
    ):
        token_revoke(user=user, token_id=token_id)


def tokens_export(*, user: User) -> dict[str, Any]:
    """The account's tokens in its data export: names, scopes and dates, never a hash."""
    return {
        "tokens": [
            {
                "name": token.name,
                "scopes": token.scope_list,
                "created_at": when(token.created_at),
                "last_used_at": when(token.last_used_at),
                "revoked_at": when(token.revoked_at),
            }
            for token in AccessToken.objects.filter(user=user)
        ]
    }
