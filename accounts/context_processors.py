"""Template context every page gets from the accounts app."""

from __future__ import annotations

from django.http import HttpRequest

from accounts.display import COOKIE_NAME, DisplaySettings


def display_settings(request: HttpRequest) -> dict[str, DisplaySettings]:
    """The viewer's display settings, from the user already loaded or the cookie: no query."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return {"display_settings": DisplaySettings.of_user(user)}
    return {"display_settings": DisplaySettings.from_cookie(request.COOKIES.get(COOKIE_NAME))}
