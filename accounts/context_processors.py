"""Template context every page gets from the accounts app."""

from __future__ import annotations

from django.http import HttpRequest

from accounts.display import DisplaySettings


def display_settings(request: HttpRequest) -> dict[str, DisplaySettings]:
    """The viewer's display settings, from the user already loaded or the cookie: no query."""
    return {"display_settings": DisplaySettings.of_viewer(request)}
