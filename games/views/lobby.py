"""The lobby: the open tables, "play now" for every game, a new table, a table against bots."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
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
    """What "play now" shows for one game: the "open a table" form (its fields' HTML) and the
    bot table's size."""
    if bound is not None and bound.rules is rules:
        form, fields = bound, bound.as_div()
    else:
        form, fields = OpenTableForm(rules=rules), empty_form_fields(rules.slug, get_language())
    return {"rules": rules, "form": form, "fields": fields, "bot_seats": bot_table_seats(rules)}


@lru_cache(maxsize=64)
def empty_form_fields(game: str, language: str | None) -> SafeString:
    """The fields of a game's empty "open a table" form in ``language`` (the active one): the
    same for every player, and drawn by Django's form templates at about 1.5 ms a game, on
    every signed-in lobby."""
    rules = playable_rules(game)
    assert rules is not None
    return OpenTableForm(rules=rules).as_div()


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
