"""Thin views for leaderboards, player profiles and the replays of finished games."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.models import User
from games import boards, replays, selectors_ratings
from games.catalog import playable_rules
from games.fairness import game_record
from games.models import Table
from games.rules import get_rules


@require_GET
def leaderboard(request: HttpRequest, game: str) -> HttpResponse:
    rules = playable_rules(game)
    if rules is None:
        raise Http404(_("There is no such game."))
    board = selectors_ratings.leaderboard_for(
        rules, page=request.GET.get("page"), provisional_page=request.GET.get("provisional")
    )
    return render(request, "games/leaderboard.html", {"board": board})


@require_GET
def player_profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username, is_active=True)
    profile = selectors_ratings.profile_for(player, page=request.GET.get("page"))
    return render(request, "accounts/player.html", {"profile": profile})


def _finished_table(table_id: int) -> Table:
    table = get_object_or_404(Table, pk=table_id)
    if not table.is_finished or table.seed is None:
        raise Http404(_("Only a finished game can be replayed."))
    return table


@require_GET
def table_replay(request: HttpRequest, table_id: int) -> HttpResponse:
    """A finished game at ``?step=N``: the page, or (for HTMX) just the replay area."""
    table = _finished_table(table_id)
    try:
        step = int(request.GET.get("step", "0"))
    except ValueError:
        return HttpResponseBadRequest(_("The step must be a whole number."))
    replay = replays.replay_at(table, step)
    context = {**boards.replay_context(table, replay.seats, replay.view), "replay": replay}
    if request.htmx:
        return render(request, "games/replay/area.html", context)
    rules = get_rules(table.game)
    context["final_view"] = rules.view(rules.from_json(table.state), None)
    context["results"] = replays.final_results(table, replay.seats)
    return render(request, "games/replay/page.html", context)


@require_GET
def table_record(request: HttpRequest, table_id: int) -> JsonResponse:
    """A finished game's seed, options and moves: everything needed to check its shuffle."""
    record = game_record(_finished_table(table_id))
    return JsonResponse({"table": table_id, **record.to_json()})
