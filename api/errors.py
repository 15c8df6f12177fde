"""Every refusal of the API as JSON: ``{"error": "<a sentence>"}`` and its 4xx status."""

from __future__ import annotations

import math
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from ninja import NinjaAPI
from ninja.errors import AuthenticationError, HttpError, Throttled, ValidationError

from games.errors import GameError


def refusal(message: str, status: int, **extra: object) -> JsonResponse:
    return JsonResponse({"error": message, **extra}, status=status)


def handlers_install(api: NinjaAPI) -> None:
    """Each handler takes ``exc: Any``: ninja's type for a handler wants the exception or its
    class."""

    def on_game_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return refusal(exc.message, exc.status)

    def on_validation(request: HttpRequest, exc: Any) -> HttpResponse:
        fields = [".".join(str(part) for part in error.get("loc", ())) for error in exc.errors]
        return refusal(
            _("The request could not be read: %(fields)s.") % {"fields": ", ".join(fields)},
            400,
            detail=[{"loc": e.get("loc"), "msg": e.get("msg")} for e in exc.errors],
        )

    def on_throttled(request: HttpRequest, exc: Any) -> HttpResponse:
        wait = max(1, math.ceil(exc.wait or 1))
        response = refusal(
            _("Too many requests with this token: wait %(seconds)d s.") % {"seconds": wait}, 429
        )
        response["Retry-After"] = str(wait)
        return response

    def on_authentication(request: HttpRequest, exc: Any) -> HttpResponse:
        message = exc.message if exc.message != "Unauthorized" else _("This token is not valid.")
        response = refusal(message, 401)
        response["WWW-Authenticate"] = 'Bearer realm="api"'
        return response

    def on_http_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return refusal(exc.message, exc.status_code)

    def on_not_found(request: HttpRequest, exc: Any) -> HttpResponse:
        return refusal(_("There is no such thing here."), 404)

    api.add_exception_handler(GameError, on_game_error)
    api.add_exception_handler(ValidationError, on_validation)
    api.add_exception_handler(Throttled, on_throttled)
    api.add_exception_handler(AuthenticationError, on_authentication)
    api.add_exception_handler(HttpError, on_http_error)
    api.add_exception_handler(Http404, on_not_found)


def not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any other address under /api/: a JSON 404, not the site's page."""
    return refusal(_("There is no such API endpoint: see /api/docs."), 404)


def api_home(request: HttpRequest) -> HttpResponse:
    """/api/ itself: where the reference is."""
    return JsonResponse({"docs": "/api/docs", "openapi": "/api/openapi.json"})
