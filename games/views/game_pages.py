"""The page of one game: its facts, how it plays, "play now", its rules and its best players."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games.catalog import get_game, playable_rules
from games.selectors.ratings import PROVISIONAL_GAMES, leaderboard_top
from games.views.lobby import play_forms

LEADERS_SHOWN = 5


@require_GET
def game_page(request: HttpRequest, game: str) -> HttpResponse:
    rules = playable_rules(game)
    if rules is None:
        raise Http404(_("There is no such game."))
    context = {
        "rules": rules,
        "game": get_game(rules.slug),
        "play": play_forms(rules),
        "leaders": leaderboard_top(rules, limit=LEADERS_SHOWN),
        "provisional_games": PROVISIONAL_GAMES,
    }
    return render(request, "game_pages/page.html", context)
