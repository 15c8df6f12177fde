"""The site's own request hooks, installed by config/settings.py (MIDDLEWARE): an address
with a NUL character, and a database lost while a view runs (the answer: config/errors.py)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.utils.translation import gettext as _

from config.errors import DATABASE_ERRORS, unavailable

logger = logging.getLogger(__name__)


class DatabaseUnavailableMiddleware:
    """A database error a view raises answers 503 with a sentence (config/errors.py)."""

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


class NullCharacterMiddleware:
    """An address with a NUL character answers 400: no page has one, and PostgreSQL refuses
    NUL in a string (a lookup by such a path or parameter would be a 500)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or "%00" in request.META.get("QUERY_STRING", ""):
            message = _("That address is not valid.")
            if request.path.startswith("/api/"):  # the API answers every refusal in JSON
                return JsonResponse({"error": message}, status=400)
            return HttpResponseBadRequest(message)
        return self.get_response(request)
