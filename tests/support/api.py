"""Tokens and calls for the API's tests."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client

from accounts.models import User
from api.services import token_make


def token_for(user: User, *scopes: str) -> str:
    """A new token of ``user`` with ``scopes`` (all three if none), its secret."""
    _token, secret = token_make(
        user=user, name="test", scopes=list(scopes) or ["read", "play", "challenge"]
    )
    return secret


def call(method: str, path: str, secret: str | None = None, body: Any = None, **extra: Any):
    """One API request with the test client; ``body`` is sent as JSON."""
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"} if secret else {}
    client = Client()
    if body is None:
        return getattr(client, method)(path, **headers, **extra)
    return getattr(client, method)(
        path, data=json.dumps(body), content_type="application/json", **headers, **extra
    )
