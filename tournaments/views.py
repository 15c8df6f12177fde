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
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from games.catalog import playable_games, playable_rules
from games.errors import GameError
from games.forms.tables import TableCreateForm
from games.views.requests import HtmxHttpRequest, SignedInRequest
from games.views.tables import whole_number
from tournaments.forms import TournamentForm
from tournaments.models import Tournament
from tournaments.selectors.progress import tournament_progress, tournament_version
from tournaments.selectors.tournaments import entries_of, tournament_of, tournaments_listing
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


# How often a running tournament's page asks whether anything moved (a 204 when not).
POLL_SECONDS = 15


def _context(request: HttpRequest, tournament: Tournament, *, whole_page: bool) -> dict[str, Any]:
    """What the page shows; its standings and rounds once it runs (the part that polls)."""
    user = request.user
    viewer = user.pk if user.is_authenticated else None
    shown = (Tournament.Status.RUNNING, Tournament.Status.FINISHED)
    progress = None
    if tournament.status in shown:
        progress = tournament_progress(tournament, viewer_id=viewer, now=timezone.now())
    entries = progress.entries if progress is not None else entries_of(tournament)
    return {
        "tournament": tournament,
        "progress": progress,
        "entries": entries,
        "mine": next((e for e in entries if e.user_id == viewer), None),
        "is_creator": viewer is not None and viewer == tournament.created_by_id,
        "poll_seconds": POLL_SECONDS,
        # A fragment carries no CSRF token: htmx sends it in a header (templates/base.html).
        "whole_page": whole_page,
    }


def _page(request: HttpRequest, tournament_id: int, status: int = 200) -> HttpResponse:
    tournament = tournament_of(tournament_id)
    if tournament is None:
        raise Http404(_("There is no such tournament."))
    context = _context(request, tournament, whole_page=True)
    return render(request, "tournaments/page.html", context, status=status)


@open_only
@require_GET
def tournament_page(request: HtmxHttpRequest, tournament_id: int) -> HttpResponse:
    """The whole page, or (htmx's poll, ``?v=<version>``) its standings and rounds: a 204 at
    the cost of one query while the tournament's version has not moved."""
    seen = whole_number(request.GET.get("v", ""))
    if not (request.htmx and seen is not None):
        return _page(request, tournament_id)
    if tournament_version(tournament_id) == seen:
        return HttpResponse(status=204)
    tournament = tournament_of(tournament_id)
    if tournament is None:
        raise Http404(_("There is no such tournament."))
    context = _context(request, tournament, whole_page=False)
    return render(request, "tournaments/live.html", context)


def _answer(request: SignedInRequest, tournament_id: int, act: Callable[[], str]) -> HttpResponse:
    """Runs ``act`` (one service call), which says what it did; a refusal is its message and
    status, on the page (for htmx, in the page's messages), and changed nothing."""
    try:
        done = act()
    except GameError as exc:
        messages.error(request, exc.message)
        if request.htmx:
            return render(request, "partials/messages.html", status=exc.status)
        return _page(request, tournament_id, status=exc.status)
    messages.success(request, done)
    url = reverse("tournament_page", args=[tournament_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _act(request: SignedInRequest, tournament_id: int, done: str, act: Any) -> HttpResponse:
    def call() -> str:
        act(tournament_id=tournament_id, user=request.user)
        return done

    return _answer(request, tournament_id, call)


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


@open_only
@login_required
@require_POST
def tournament_ready(request: SignedInRequest, tournament_id: int, pairing_id: int) -> HttpResponse:
    """A player of a round window's game is ready to start it."""

    def ready() -> str:
        if services.pairing_ready(pairing_id=pairing_id, user=request.user):
            return _("You are both ready: your game has started.")
        return _("You are ready: the game starts as soon as your opponent is.")

    return _answer(request, tournament_id, ready)


@open_only
@login_required
@require_POST
def tournament_round_end(request: SignedInRequest, tournament_id: int) -> HttpResponse:
    """Its creator ends the current round once its time is up."""
    return _act(request, tournament_id, _("The round is over."), services.round_end)
