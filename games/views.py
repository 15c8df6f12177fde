"""Thin views: parse the request, call one service or selector, render."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from games import live, selectors, services
from games.catalog import board_template, playable_games, playable_rules
from games.errors import GameError, NotFound
from games.forms import (
    BOT_LEVEL_CHOICES,
    ActionForm,
    BotTableForm,
    TableCreateForm,
    bot_table_seats,
)
from games.health import check as health_check
from games.models import Seat, Table
from games.rules import Rules
from games.time_controls import DEFAULT_TIME_PER_MOVE

PRESENCE_REFRESH = dt.timedelta(seconds=20)
# The board shows the latest log entries only, so that rendering and sending it costs the
# same at move 10 and move 300; a link opens the whole log (``table_log``).
LOG_TAIL = 20


def lobby(request: HttpRequest) -> HttpResponse:
    return render(request, "games/lobby.html", _lobby_context(request))


def play_forms(rules: Rules, bound: TableCreateForm | None = None) -> dict[str, Any]:
    """What "play now" shows for one game: the "open a table" form and the bot table's size."""
    form = bound if bound is not None and bound.rules is rules else TableCreateForm(rules=rules)
    return {"rules": rules, "form": form, "bot_seats": bot_table_seats(rules)}


def _lobby_context(request: HttpRequest, bound: TableCreateForm | None = None) -> dict:
    games = [play_forms(rules, bound) for rules in playable_games()]
    return {
        "lobby": selectors.lobby_for(request.user),
        "games": games,
        "bot_levels": BOT_LEVEL_CHOICES,
    }


@login_required
@require_POST
def table_create(request: HttpRequest) -> HttpResponse:
    rules = playable_rules(request.POST.get("game", ""))
    if rules is None:
        messages.error(request, _("There is no such game."))
        return render(request, "games/lobby.html", _lobby_context(request), status=400)
    form = TableCreateForm(request.POST, rules=rules)
    if not form.is_valid():
        messages.error(request, _("Please choose a number of players and a time per move."))
        return render(request, "games/lobby.html", _lobby_context(request, form), status=400)
    try:
        table = services.table_create(user=request.user, **form.table_arguments())
    except GameError as exc:
        messages.error(request, exc.message)
        return render(request, "games/lobby.html", _lobby_context(request, form), status=exc.status)
    return redirect("table_detail", table_id=table.pk)


def _table_action(request: HttpRequest, table_id: int, service) -> HttpResponse:
    try:
        service(table_id=table_id, user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
        if request.htmx:
            return render(request, "games/partials/messages.html", status=exc.status)
        return (
            redirect("table_detail", table_id=table_id) if exc.status != 404 else redirect("lobby")
        )
    url = reverse("table_detail", args=[table_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
def table_join(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_action(request, table_id, services.table_join)


@login_required
@require_POST
def table_seat_bot(request: HttpRequest, table_id: int) -> HttpResponse:
    level = request.POST.get("level", "medium")
    return _table_action(request, table_id, lambda **kw: services.table_seat_bot(level=level, **kw))


@login_required
@require_POST
def play_against_bots(request: HttpRequest) -> HttpResponse:
    """One click from the lobby: a table of this game with bots in every other seat."""
    form = BotTableForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Please choose a game and a bot level."))
        return redirect("lobby")
    try:
        table = services.table_create_against_bots(
            user=request.user, seconds_per_move=DEFAULT_TIME_PER_MOVE, **form.cleaned_data
        )
    except GameError as exc:
        messages.error(request, exc.message)
        return render(request, "games/lobby.html", _lobby_context(request), status=exc.status)
    return redirect("table_detail", table_id=table.pk)


@login_required
@require_POST
def table_leave(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_action(request, table_id, services.table_leave)


@login_required
@require_POST
def table_abort(request: HttpRequest, table_id: int) -> HttpResponse:
    return _table_action(request, table_id, services.table_abort)


@login_required
def table_invite(request: HttpRequest, code: str) -> HttpResponse:
    """The invite link: it seats the signed-in friend directly and opens the table."""
    table = get_object_or_404(Table.objects.only("pk", "status"), invite_code=code)
    try:
        services.table_join(table_id=table.pk, user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
    return redirect("table_detail", table_id=table.pk)


def whole_number(text: str) -> int | None:
    """``text`` as a whole number, or None: ASCII digits only (``"²".isdigit()`` is true too)."""
    if text.isascii() and text.isdigit() and len(text) <= 12:
        return int(text)
    return None


@require_GET
def table_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    """The whole table page, or (for HTMX) just the board.

    The board polls with ``?v=<version>``: an unchanged table answers 204 at the cost of one query.
    """
    seen = whole_number(request.GET.get("v", ""))
    if request.htmx and seen is not None:
        current = Table.objects.filter(pk=table_id).values_list("version", flat=True).first()
        if current is not None and current == seen:
            _touch_presence(request, table_id)
            return HttpResponse(status=204)
    table = get_object_or_404(Table, pk=table_id)
    _touch_presence(request, table_id)
    page = selectors.table_page_for(table, request.user)
    template = "games/partials/board.html" if request.htmx else "games/table.html"
    return render(request, template, board_context(page, user=request.user, request=request))


def board_context(
    page: selectors.TablePage,
    *,
    user: Any,
    request: HttpRequest | None = None,
    error: str = "",
) -> dict[str, Any]:
    """What the board fragment needs; the same for HTTP and for the websocket."""
    table = page.table
    invite = reverse("table_invite", args=[table.invite_code])
    log = page.view["log"] if page.view else []
    return {
        "page": page,
        "table": table,
        "view": page.view,
        "names": page.names,
        "user": user,
        "board_template": board_template(table.game),
        "log_template": f"games/{table.game}/log_entry.html",
        "log_entries": log[-LOG_TAIL:],
        "log_earlier": max(0, len(log) - LOG_TAIL),
        "log_total": len(log),
        "error": error,
        "poll_ms": settings.TABLE_POLL_MS,
        "invite_url": request.build_absolute_uri(invite) if request else settings.SITE_URL + invite,
        "ranking": _ranking(page),
        # The game waits for this seat (in a simultaneous phase: it has not chosen yet).
        "my_turn": any(s.position == page.position and s.is_waiting for s in page.seats),
    }


def _ranking(page: selectors.TablePage) -> list[dict[str, Any]]:
    """The seats by final place (forfeits included), for the end of the game."""
    outcome = page.table.outcome
    if not outcome:
        return []
    rows = [
        {
            "seat": seat,
            "rank": outcome["ranks"][seat.position],
            "score": outcome["scores"][seat.position],
        }
        for seat in page.seats
    ]
    return sorted(rows, key=lambda row: (row["rank"], row["seat"].position))


def _touch_presence(request: HttpRequest, table_id: int) -> None:
    """Remembers that this player has the table open: no reminder e-mail while they do."""
    if request.user.is_authenticated:
        now = timezone.now()
        Seat.objects.filter(table_id=table_id, user=request.user).filter(
            Q(seen_at__isnull=True) | Q(seen_at__lt=now - PRESENCE_REFRESH)
        ).update(seen_at=now)


@require_GET
def table_log(request: HttpRequest, table_id: int) -> HttpResponse:
    """The whole game log as this user may see it: the board shows only the latest entries."""
    table = get_object_or_404(Table, pk=table_id)
    page = selectors.table_page_for(table, request.user)
    context = {
        "table": table,
        "names": page.names,
        "view": page.view,
        "log_template": f"games/{table.game}/log_entry.html",
        "log_entries": page.view["log"] if page.view else [],
    }
    return render(request, "games/table_log.html", context)


@require_GET
def table_view_json(request: HttpRequest, table_id: int) -> JsonResponse:
    """The same view as the board, as JSON: what this user's seat (or a spectator) may know."""
    table = get_object_or_404(Table, pk=table_id)
    page = selectors.table_page_for(table, request.user)
    return JsonResponse(
        {
            "table": table.pk,
            "version": table.version,
            "status": table.status,
            "seat": page.position,
            "view": page.view,
        }
    )


@require_POST
def table_act(request: HttpRequest, table_id: int) -> HttpResponse:
    """Plays one action. Refusals answer 4xx with the reason and the board as it is now."""
    form = ActionForm(request.POST)
    error, status, table, seats = "", 200, None, None
    if not request.user.is_authenticated:
        error, status = _("Sign in to play."), 403
    elif not form.is_valid():
        error, status = _("That move could not be read."), 400
    else:
        try:
            with live.changes_from_page(request.headers.get("X-Page", "")):
                result = services.move_play(
                    table_id=table_id,
                    user=request.user,
                    action=form.cleaned_data["action"],
                    version=form.cleaned_data["version"],
                )
            # The table and seats as the move left them: the board needs no second read.
            table, seats = result.table, result.seats
        except NotFound:
            raise Http404 from None
        except GameError as exc:
            error, status = exc.message, exc.status
    if table is None:
        table = get_object_or_404(Table, pk=table_id)
    if not request.htmx and not error:
        return redirect("table_detail", table_id=table.pk)
    page = selectors.table_page_for(table, request.user, seats=seats)
    template = "games/partials/board.html" if request.htmx else "games/table.html"
    context = board_context(page, user=request.user, request=request, error=error)
    return render(request, template, context, status=status)


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """200 when the database, Redis and a worker all answer; 503 otherwise."""
    report = health_check()
    healthy = all(part["ok"] for part in report.values())
    return JsonResponse({"ok": healthy, **report}, status=200 if healthy else 503)
