"""A lost database connection answers 503 with a sentence, not a bare 500.

Every write runs in one transaction, so a connection dropped mid-request rolls the
whole move back: the player is told to try again, and nothing was half stored.
``config.middleware.DatabaseUnavailableMiddleware`` catches what a view raises;
``server_error`` (the site's handler500, config/urls.py) catches the same errors raised
earlier, e.g. while loading the session.
"""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.defaults import server_error as default_server_error

RETRY_AFTER_SECONDS = 5
DATABASE_ERRORS = (OperationalError, InterfaceError)


def unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 page (or, for HTMX, the messages fragment; for the API, its JSON refusal); it
    reads nothing from the database."""
    message = _("The site lost its database for a moment: nothing was changed. Please try again.")
    response: HttpResponse
    if request.path.startswith("/api/"):  # the API answers every refusal in JSON
        response = JsonResponse({"error": message}, status=503)
    else:
        template = "partials/unavailable.html" if getattr(request, "htmx", False) else None
        body = render_to_string(template or "unavailable.html", {"message": message})
        response = HttpResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: a database error raised outside a view is still a 503 with a sentence."""
    if isinstance(sys.exc_info()[1], DATABASE_ERRORS):
        return unavailable(request)
    return default_server_error(request)
