"""Shows every date and time in the signed-in player's own time zone."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone


class UserTimeZoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.time_zone:
            timezone.activate(zoneinfo.ZoneInfo(user.time_zone))
        else:
            timezone.deactivate()
        return self.get_response(request)
