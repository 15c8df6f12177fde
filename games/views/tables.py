"""A table: its page and board fragment, taking and leaving a seat, and a move posted over HTTP."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from accounts.prefs import session_user_id
from games import boards, extensions, submissions
from games.catalog import get_game
from games.errors import GameError
from games.models import Seat, Table
from games.selectors.pace import SEAT_PACE
from games.selectors.tables import table_page_for
from games.services import tables as table_services
from games.services.presence import PRESENCE_REFRESH, seat_presence_touch
from games.views.requests import HtmxHttpRequest, SignedInRequest


def _table_action(
    request: SignedInRequest, table_id: int, service: Callable[..., object]
) -> HttpResponse:
    try:
        service(table_id=table_id, user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
        if request.htmx:
            return render(request, "partials/messages.html", status=exc.status)
        return (
            redirect("table_detail", table_id=table_id) if exc.status != 404 else redirect("lobby")
        )
    url = reverse("table_detail", args=[table_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
def table_join(request: SignedInRequest, table_id: int) -> HttpResponse:
    return _table_action(request, table_id, table_services.table_join)


@login_required
@require_POST
def table_seat_bot(request: SignedInRequest, table_id: int) -> HttpResponse:
    level = request.POST.get("level", "medium")
    return _table_action(
        request, table_id, lambda **kw: table_services.table_seat_bot(level=level, **kw)
    )


@login_required
@require_POST
def table_leave(request: SignedInRequest, table_id: int) -> HttpResponse:
    return _table_action(request, table_id, table_services.table_leave)


@login_required
@require_POST
def table_abort(request: SignedInRequest, table_id: int) -> HttpResponse:
    return _table_action(request, table_id, table_services.table_abort)


@login_required
def table_invite(request: SignedInRequest, code: str) -> HttpResponse:
    """The invite link: it seats the signed-in friend directly and opens the table."""
    table = get_object_or_404(Table.objects.only("pk", "status"), invite_code=code)
    try:
        table_services.table_join(table_id=table.pk, user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
    return redirect("table_detail", table_id=table.pk)


def csrf_input(request: HttpRequest) -> str:
    """A form's hidden CSRF field, for the whole page only: fragments must stay shareable."""
    return format_html(
        '<input type="hidden" name="csrfmiddlewaretoken" value="{}">', get_token(request)
    )


def whole_number(text: str) -> int | None:
    """``text`` as a whole number, or None: ASCII digits only (``"²".isdigit()`` is true too)."""
    if text.isascii() and text.isdigit() and len(text) <= 12:
        return int(text)
    return None


@require_GET
def table_detail(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
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
    seats = list(table.seats.select_related("user", SEAT_PACE))
    if request.htmx:
        audience = boards.Audience.of(request.user, seats)
        return HttpResponse(boards.board_for(table, audience, seats).html)
    return _table_page(request, table, seats)


def _table_page(
    request: HtmxHttpRequest, table: Table, seats: list[Seat], message: str = "", status: int = 200
) -> HttpResponse:
    """The whole page: its forms carry a CSRF token, so that they work without JavaScript."""
    audience = boards.Audience.of(request.user, seats)
    if request.user.is_authenticated:
        for opened in extensions.table_opened:  # what they were told of this table is read
            opened(request.user, table)
    board = boards.board_for(table, audience, seats, csrf_input=csrf_input(request))
    game = get_game(table.game)
    context = {
        "table": table,
        "game": game,
        "board": board,
        "audience": audience,
        "message": boards.message_html(message),
        "game_script": game.script,
        # What the apps above add under the board (the table's chat).
        "extra_panels": mark_safe(
            "".join(panel(request, table, audience.position) for panel in extensions.table_panels)
        ),
    }
    return render(request, "tables/table.html", context, status=status)


def _touch_presence(request: HttpRequest, table_id: int) -> None:
    """Remembers that this player has the table open: no reminder e-mail while they do.

    At most once per ``PRESENCE_REFRESH`` and table: the page polls far more often, and its
    poll should cost one query (the cache says when the row was last written).
    """
    user_id = session_user_id(request)
    if user_id is None:
        return
    key = f"presence:{table_id}:{user_id}"
    if cache.get(key):  # a miss while the cache's Redis fails: the row is written
        return
    cache.set(key, True, PRESENCE_REFRESH.total_seconds())
    if request.user.is_authenticated:
        seat_presence_touch(table_id=table_id, user_id=request.user.pk)


@require_GET
def table_log(request: HttpRequest, table_id: int) -> HttpResponse:
    """The whole game log as this user may see it: the board shows only the latest entries."""
    table = get_object_or_404(Table, pk=table_id)
    page = table_page_for(table, request.user)
    game = get_game(table.game)
    context = {
        "table": table,
        "game": game,
        "names": page.names,
        "view": page.view,
        "log_template": game.templates.log_entry,
        "log_entries": page.view["log"] if page.view else [],
    }
    return render(request, "tables/table_log.html", context)


@require_GET
def table_view_json(request: HttpRequest, table_id: int) -> JsonResponse:
    """The same view as the board, as JSON: what this user's seat (or a spectator) may know."""
    table = get_object_or_404(Table, pk=table_id)
    page = table_page_for(table, request.user)
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
def table_act(request: HtmxHttpRequest, table_id: int) -> HttpResponse:
    """Plays one action over HTTP (pages without a socket, or without JavaScript).

    The answer is the reason of a refusal (4xx) for ``#board-message``, with the board as it is
    now as out-of-band parts; without JavaScript, the page again. The websocket's moves take
    the same path (``submissions.move_submit``).
    """
    outcome = submissions.move_submit(
        table_id=table_id,
        user=request.user,
        data=request.POST,
        origin=request.headers.get("X-Page", ""),
    )
    if outcome.table is None:
        raise Http404
    if not request.htmx:
        if not outcome.message:
            return redirect("table_detail", table_id=table_id)
        return _table_page(request, outcome.table, outcome.seats, outcome.message, outcome.status)
    audience = boards.Audience.of(request.user, outcome.seats)
    board = boards.board_for(outcome.table, audience, outcome.seats, state=outcome.state)
    response = HttpResponse(
        boards.message_html(outcome.message) + boards.oob(board.html, "board"),
        status=outcome.status,
    )
    if outcome.message:
        # A refusal is part of the game, not an error page: django-htmx's debug script (DEBUG
        # on) would otherwise replace the whole document with this answer (static/js/table.js).
        response["X-Refusal"] = "1"
    return response
