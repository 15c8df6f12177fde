"""Shows every page in the signed-in player's own time zone and language.

Both come from ``accounts.prefs`` (the cache, by the session's user id), so that a request
that needs nothing else of the user (an unchanged board poll) does not read its row.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone, translation

from accounts.online import online_mark
from accounts.prefs import session_user_id, user_prefs


class UserTimeZoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        prefs = user_prefs(request)
        if prefs and prefs[0]:
            try:
                timezone.activate(zoneinfo.ZoneInfo(prefs[0]))
            except (zoneinfo.ZoneInfoNotFoundError, ValueError):
                timezone.deactivate()
        else:
            timezone.deactivate()
        return self.get_response(request)


class UserLanguageMiddleware:
    """A signed-in player's chosen language wins over the browser's (after LocaleMiddleware)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        prefs = user_prefs(request)
        if not (prefs and prefs[1]):
            return self._respond(request)
        request.LANGUAGE_CODE = prefs[1]
        # Only for this request: the thread serves the next one (or the next test) as it was.
        with translation.override(prefs[1]):
            return self._respond(request)

    def _respond(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", translation.get_language())
        return response


class OnlineMarkMiddleware:
    """Every request of a signed-in player marks them online (``accounts.online``: the cache
    only, from the session's user id; no row is read)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user_id = session_user_id(request)
        if user_id is not None:
            online_mark(user_id)
        return self.get_response(request)


class SessionSeenMiddleware:
    """A signed-in device's "last seen" on the sessions page (``accounts.sessions.seen``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if hasattr(request, "session"):  # the session alone: the user's row is not read
            from accounts.sessions import seen

            seen(request)
        return self.get_response(request)
