"""Who calls: the bearer token, its scopes, and its rate limit.

A token is looked up by its SHA-256 (``api.tokens.fingerprint``) on every request, so a revoked
one stops at once. The rate limit counts a token's requests in fixed windows in the cache (Redis
in production), one ``incr`` a request; over it, 429 with ``Retry-After``.
"""

from __future__ import annotations

import math
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.utils.translation import gettext as _
from ninja.errors import AuthenticationError, HttpError
from ninja.security import HttpBearer
from ninja.throttling import BaseThrottle

from api.models import AccessToken
from api.selectors import token_for_secret
from api.services import token_used


class TokenAuth(HttpBearer):
    """``Authorization: Bearer <token>``; a missing, unknown or revoked token is a 401."""

    def authenticate(self, request: HttpRequest, token: str) -> AccessToken:
        found = token_for_secret(token)
        if found is None:
            raise AuthenticationError(message=_("This token is not valid: it may be revoked."))
        token_used(token=found)
        request.user = found.user
        return found

    def __call__(self, request: HttpRequest) -> Any:
        found = super().__call__(request)
        if found is None and not request.headers.get("Authorization"):
            raise AuthenticationError(
                message=_("Send your token in the Authorization header: Bearer <token>.")
            )
        return found


def token_of(request: HttpRequest) -> AccessToken:
    token = request.auth  # type: ignore[attr-defined]
    assert isinstance(token, AccessToken)
    return token


def scope_required(request: HttpRequest, scope: str) -> AccessToken:
    """The request's token, if it has ``scope``; otherwise a 403 that names the scope."""
    token = token_of(request)
    if not token.allows(scope):
        raise HttpError(
            403, _("This token lacks the %(scope)s scope: make one with it.") % {"scope": scope}
        )
    return token


class TokenThrottle(BaseThrottle):
    """``API_RATE_PER_MINUTE`` requests a token in each minute of the clock."""

    def __init__(self) -> None:
        self.retry_after = 0.0

    def allow_request(self, request: HttpRequest) -> bool:
        token = getattr(request, "auth", None)
        if not isinstance(token, AccessToken):
            return True  # refused by the authentication anyway
        window = 60
        now = time.time()
        start = math.floor(now / window) * window
        key = f"api-rate:{token.pk}:{int(start)}"
        if cache.add(key, 1, timeout=window + 5):
            count = 1
        else:
            try:
                count = cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=window + 5)
                count = 1
        if count <= settings.API_RATE_PER_MINUTE:
            return True
        self.retry_after = start + window - now
        return False

    def wait(self) -> float | None:
        return max(self.retry_after, 1.0)
