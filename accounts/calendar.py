"""The secret address of a player's calendar feed (games/views/calendar.py serves it).

The address holds a random token (``secrets.token_urlsafe(32)``), the feed's only credential: a
calendar app fetches it without a cookie. The user row keeps only the token's SHA-256
(``User.calendar_key``), so the token is shown once, when it is made; making it again or turning
the feed off makes the old address answer 404.
"""

from __future__ import annotations

import hashlib
import secrets

from accounts.models import User

# A token's length in the address (token_urlsafe(32): 43 characters); longer text is no token.
TOKEN_MAX_LENGTH = 64


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def calendar_token_make(*, user: User) -> str:
    """A new secret for ``user``'s feed, returned once; the previous address stops working."""
    token = secrets.token_urlsafe(32)
    user.calendar_key = _digest(token)
    user.save(update_fields=["calendar_key"])
    return token


def calendar_token_revoke(*, user: User) -> None:
    """Turns ``user``'s feed off: its address answers 404."""
    user.calendar_key = None
    user.save(update_fields=["calendar_key"])


def user_from_calendar_token(*, token: str) -> User | None:
    """The player whose feed ``token`` opens, or None (unknown, revoked, a closed account)."""
    if not token or len(token) > TOKEN_MAX_LENGTH:
        return None
    return User.objects.filter(
        calendar_key=_digest(token), is_active=True, closed_at__isnull=True
    ).first()
