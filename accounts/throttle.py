"""Who a sign-in attempt is for, as django-axes counts failures (see AXES_* in settings)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

# allauth's form posts "login" (a username or an e-mail address); authenticate() receives
# it as "username" or "email"; the admin's form posts "username".
_FIELDS = ("username", "email", "login")


def login_name(request: HttpRequest | None, credentials: dict[str, Any] | None) -> str:
    """The name typed into the sign-in form, case-folded, so "Bob" and "bob" count together."""
    sources = [credentials or {}, getattr(request, "POST", {}) or {}]
    for source in sources:
        for field in _FIELDS:
            value = source.get(field)
            if isinstance(value, str) and value.strip():
                return value.strip().casefold()
    return ""
