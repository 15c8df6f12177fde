"""Shows every page in the signed-in player's own time zone and language.

Both come from ``accounts.prefs`` (the cache, by the session's user id), so that a request
that needs nothing else of the user (an unchanged board poll) does not read its row.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django import forms
from django.http import HttpRequest, HttpResponse
from django.template.response import SimpleTemplateResponse
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


# allauth's own refusals for too many tries (its failed sign-ins counted per address, a code
# asked for too often): the form says so, and the answer is 429 as its other rate limits are.
TOO_MANY_CODES = {"too_many_login_attempts", "rate_limited"}


def refused_form_status(context: object) -> int | None:
    """400 if the page's context holds a form that was posted and is wrong, 429 if it was
    refused for too many tries; None otherwise. A form is checked as its template would check
    it when it shows the errors (some of allauth's views put a second copy of the posted form
    in the page, not yet checked); one already checked, a sign-in's, is not checked again."""
    if not isinstance(context, dict):
        return None
    status = None
    for value in context.values():
        if isinstance(value, forms.BaseForm) and value.is_bound and value.errors:
            codes = {error.code for errors in value.errors.as_data().values() for error in errors}
            status = 429 if codes & TOO_MANY_CODES else status or 400
    return status


def _allauth_view(request: HttpRequest) -> bool:
    """The view is allauth's, or the site's own on an allauth view (accounts/views.py)."""
    match = request.resolver_match
    view = getattr(match.func, "view_class", None) if match else None
    return view is not None and any(c.__module__.startswith("allauth.") for c in view.__mro__)


class RefusedFormStatusMiddleware:
    """A form of allauth's (signing in, codes, two-factor, passkeys) posted with bad input
    answers 400 with the same page and its errors, not allauth's 200, so that a client, a
    proxy's log or a test can tell a refused form from a page shown. Only a 200 changes:
    allauth's rate limits (429), django-axes' lockout (429) and redirects stay as they are."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_template_response(
        self, request: HttpRequest, response: SimpleTemplateResponse
    ) -> SimpleTemplateResponse:
        if request.method == "POST" and response.status_code == 200 and _allauth_view(request):
            response.status_code = refused_form_status(response.context_data) or 200
        return response
