"""A token's secret and its fingerprint: plain functions, no database."""

from __future__ import annotations

import hashlib
import secrets

PREFIX = "ctp_"  # "card tables personal": a leaked token is recognisable in a scan
SHOWN = 8  # characters of the token kept to tell tokens apart in the list


def secret_new() -> str:
    return PREFIX + secrets.token_urlsafe(32)


def fingerprint(secret: str) -> str:
    """What is stored and looked up: the SHA-256 of the token (it is random and long, so no
    salt or slow hash is needed, unlike a password)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def token_group(token_id: int) -> str:
    """The channel-layer group of a token's open streams: told when it is revoked."""
    return f"api-token-{token_id}"


def user_group(user_id: int) -> str:
    """The channel-layer group of a player's per-token event streams."""
    return f"api-user-{user_id}"
