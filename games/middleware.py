"""A lost database connection answers 503 with a sentence, not a bare 500.

Every write runs in one transaction, so a connection dropped mid-request rolls the
whole move back: the player is told to try again, and nothing was half stored.
The middleware catches what a view raises; ``server_error`` (the site's handler500)
catches the same errors raised earlier, e.g. while loading the session.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.defaults import server_error as default_server_error

logger = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
DATABASE_ERRORS = (OperationalError, InterfaceError)


def unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 page (or, for HTMX, the messages fragment); it reads nothing from the database."""
    message = _("The site lost its database for a moment: nothing was changed. Please try again.")
    template = "tables/partials/unavailable.html" if getattr(request, "htmx", False) else None
    body = render_to_string(template or "unavailable.html", {"message": message})
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, DATABASE_ERRORS):
            return None
        logger.warning(
            "database unavailable for %s %s: %s", request.method, request.path, exception
        )
        return unavailable(request)


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a database error raised outside a view is still a 503 with a sentence."""
    if isinstance(sys.exc_info()[1], DATABASE_ERRORS):
        return unavailable(request)
    return default_server_error(request)


class NullCharacterMiddleware:
    """An address with a NUL character answers 400: no page has one, and PostgreSQL refuses
    NUL in a string (a lookup by such a path or parameter would be a 500)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or "%00" in request.META.get("QUERY_STRING", ""):
            return HttpResponseBadRequest(_("That address is not valid."))
        return self.get_response(request)
