"""The Tournaments tab, a tournament's page, creating one, and entering, leaving and cancelling:
thin views over ``tournaments.services`` and ``tournaments.selectors``."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.catalog import playable_games, playable_rules
from games.errors import GameError
from games.forms.tables import TableCreateForm
from games.views.requests import SignedInRequest
from tournaments.forms import TournamentForm
from tournaments.selectors.tournaments import (
    entries_of,
    entry_of,
    tournament_of,
    tournaments_listing,
)
from tournaments.services import entries as services
from tournaments.services.entries import TournamentSettings


def open_only(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page of the tournaments: "not found" while they are shut (``TOURNAMENTS_OPEN``)."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not settings.TOURNAMENTS_OPEN:
            raise Http404(_("There is no such tournament."))
        return view(request, *args, **kwargs)

    return wrapper


@open_only
@require_GET
def tournaments_page(request: HttpRequest) -> HttpResponse:
    return render(request, "tournaments/list.html", {"listing": tournaments_listing()})


def _new_page(
    request: SignedInRequest,
    game_form: TableCreateForm | None,
    form: TournamentForm | None,
    status: int = 200,
) -> HttpResponse:
    games = [rules for rules in playable_games() if rules.max_players >= 2]
    context = {"games": games, "game_form": game_form, "form": form}
    return render(request, "tournaments/new.html", context, status=status)


@open_only
@login_required
@require_http_methods(["GET", "POST"])
def tournament_new(request: SignedInRequest) -> HttpResponse:
    """Choose a game (GET without ``?game``), then its tournament's settings (GET, POST)."""
    data = request.POST if request.method == "POST" else None
    slug = (data or request.GET).get("game", "")
    rules = playable_rules(slug) if slug else None
    if rules is None or rules.max_players < 2:
        if slug or data is not None:
            messages.error(request, _("There is no such game."))
            return _new_page(request, None, None, status=400)
        return _new_page(request, None, None)
    game_form = TableCreateForm(data, rules=rules)
    form = TournamentForm(data, zone=request.user.zone, initial={"min_players": 4})
    if data is None:
        return _new_page(request, game_form, form)
    if not (game_form.is_valid() and form.is_valid()):
        messages.error(request, _("Some settings are missing or not valid: see below."))
        return _new_page(request, game_form, form, status=400)
    table: dict[str, Any] = game_form.table_arguments()
    chosen = TournamentSettings(
        game=table["game"],
        table_size=table["num_seats"],
        seconds_per_move=table["seconds_per_move"],
        rated=table["rated"],
        options=table["options"],
        **form.settings_arguments(),
    )
    try:
        tournament = services.tournament_create(user=request.user, chosen=chosen)
    except GameError as exc:
        messages.error(request, exc.message)
        return _new_page(request, game_form, form, status=exc.status)
    messages.success(request, _("Your tournament is open for sign-up."))
    return redirect("tournament_page", tournament_id=tournament.pk)


def _page(request: HttpRequest, tournament_id: int, status: int = 200) -> HttpResponse:
    tournament = tournament_of(tournament_id)
    if tournament is None:
        raise Http404(_("There is no such tournament."))
    user = request.user
    context = {
        "tournament": tournament,
        "entries": entries_of(tournament),
        "mine": entry_of(tournament, user),  # type: ignore[arg-type]
        "is_creator": user.is_authenticated and user.pk == tournament.created_by_id,
    }
    return render(request, "tournaments/page.html", context, status=status)


@open_only
@require_GET
def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _page(request, tournament_id)


def _act(request: SignedInRequest, tournament_id: int, done: str, act: Any) -> HttpResponse:
    try:
        act(tournament_id=tournament_id, user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
        return _page(request, tournament_id, status=exc.status)
    messages.success(request, done)
    return redirect("tournament_page", tournament_id=tournament_id)


@open_only
@login_required
@require_POST
def tournament_join(request: SignedInRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, _("You are in."), services.tournament_join)


@open_only
@login_required
@require_POST
def tournament_leave(request: SignedInRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, _("You are out of it."), services.tournament_leave)


@open_only
@login_required
@require_POST
def tournament_cancel(request: SignedInRequest, tournament_id: int) -> HttpResponse:
    return _act(
        request, tournament_id, _("The tournament is cancelled."), services.tournament_cancel
    )
