"""The lobby's Tournaments section (games/extensions.py ``lobby_panels``): no query."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.template.loader import render_to_string


def lobby_panel(request: HttpRequest) -> str:
    if not settings.TOURNAMENTS_OPEN:
        return ""
    return render_to_string("tournaments/lobby_panel.html", request=request)
