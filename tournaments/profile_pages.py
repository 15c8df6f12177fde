"""A player's tournaments on their profile (games/extensions.py ``profile_panels``): the latest
they entered, each with how it stands, and the ones they won. One query."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.template.loader import render_to_string

from accounts.models import User
from tournaments.selectors.tournaments import entries_of_player

SHOWN = 5


def profile_panel(request: HttpRequest, player: User) -> str:
    if not settings.TOURNAMENTS_OPEN:
        return ""
    entries = entries_of_player(player, limit=SHOWN)
    if not entries:
        return ""
    context = {"entries": entries, "player": player}
    return render_to_string("tournaments/profile_panel.html", context, request=request)
