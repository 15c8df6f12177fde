"""Leaderboards and player profiles."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.models import User
from games import extensions
from games.catalog import playable_rules
from games.selectors.ratings import leaderboard_for, profile_for


@require_GET
def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    rules = playable_rules(game)
    if rules is None:
        raise Http404(_("There is no such game."))
    board = leaderboard_for(
        rules, page=request.GET.get("page"), provisional_page=request.GET.get("provisional")
    )
    return render(request, "ratings/leaderboard.html", {"board": board})


@require_GET
def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(
        User.objects.select_related("pace"), username=username, is_active=True
    )
    profile = profile_for(player, page=request.GET.get("page"))
    extra = mark_safe("".join(panel(request, player) for panel in extensions.profile_panels))
    return render(request, "accounts/player.html", {"profile": profile, "extra_panels": extra})
