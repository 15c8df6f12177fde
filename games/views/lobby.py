"""The lobby: the open tables, "play now" for every game, a new table, a table against bots."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games import extensions
from games.catalog import playable_games, playable_rules
from games.errors import GameError
from games.forms.tables import (
    BotTableForm,
    OpenTableForm,
    bot_table_seats,
)
from games.rules import AnyRules
from games.selectors.tables import lobby_for
from games.services import tables as table_services
from games.time_controls import DEFAULT_TIME_PER_MOVE
from games.views.requests import SignedInRequest


def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "tables/lobby.html", _lobby_context(request))


def play_forms(rules: AnyRules, bound: OpenTableForm | None = None) -> dict[str, Any]:
    """What "play now" shows for one game: the "open a table" form and the bot table's size."""
    form = bound if bound is not None and bound.rules is rules else OpenTableForm(rules=rules)
    return {"rules": rules, "form": form, "bot_seats": bot_table_seats(rules)}


def _lobby_context(request: HttpRequest, bound: OpenTableForm | None = None) -> dict[str, Any]:
    games = [play_forms(rules, bound) for rules in playable_games()]
    lobby = lobby_for(request.user)
    if request.user.is_authenticated and lobby.my_tables:
        # What the apps above note on "your tables" (unread chat lines), all rows at once.
        notes: dict[int, list[str]] = {}
        for hook in extensions.row_notes:
            for table_id, note in hook(request.user, lobby.my_tables).items():
                notes.setdefault(table_id, []).append(note)
        for table in lobby.my_tables:
            table.row_note = mark_safe("".join(notes.get(table.pk, [])))
    return {
        "lobby": lobby,
        "games": games,
        "extra_panels": mark_safe("".join(panel(request) for panel in extensions.lobby_panels)),
    }


@login_required
@require_POST
def table_create(request: SignedInRequest) -> HttpResponse:
    rules = playable_rules(request.POST.get("game", ""))
    if rules is None:
        messages.error(request, _("There is no such game."))
        return render(request, "tables/lobby.html", _lobby_context(request), status=400)
    form = OpenTableForm(request.POST, rules=rules)
    if not form.is_valid():
        messages.error(request, _("Please choose a number of players and a time per move."))
        return render(request, "tables/lobby.html", _lobby_context(request, form), status=400)
    try:
        table = table_services.table_create(user=request.user, **form.table_arguments())
    except GameError as exc:
        messages.error(request, exc.message)
        return render(
            request, "tables/lobby.html", _lobby_context(request, form), status=exc.status
        )
    return redirect("table_detail", table_id=table.pk)


@login_required
@require_POST
def play_against_bots(request: SignedInRequest) -> HttpResponse:
    """One click from the lobby: a table of this game with bots in every other seat."""
    form = BotTableForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Please choose a game and a bot level."))
        return redirect("lobby")
    try:
        table = table_services.table_create_against_bots(
            user=request.user, seconds_per_move=DEFAULT_TIME_PER_MOVE, **form.cleaned_data
        )
    except GameError as exc:
        messages.error(request, exc.message)
        return render(request, "tables/lobby.html", _lobby_context(request), status=exc.status)
    return redirect("table_detail", table_id=table.pk)
