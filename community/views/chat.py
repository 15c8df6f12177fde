"""The chat's HTTP side: a line written without the socket, a room's older or newer lines, a
report of a line, and the creator closing the table's room to spectators."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from community.chat_pages import lines_html, post_answer
from community.models import Room
from community.selectors.chat import PAGE_LINES, may_read, room_lines, visible_lines
from community.services import chat as chat_services
from games.errors import GameError
from games.models import Table
from games.views.requests import SignedInRequest
from games.views.tables import whole_number


@require_POST
def chat_post(request: HttpRequest, table_id: int) -> HttpResponse:
    """A line written over HTTP (the page's socket is closed, or there is no JavaScript)."""
    user = request.user if request.user.is_authenticated else None
    answer = post_answer(
        table_id=table_id,
        user=user,
        room=request.POST.get("room"),
        text=request.POST.get("chat_text"),
        live=False,
    )
    if request.headers.get("HX-Request"):
        return HttpResponse(answer.html, status=answer.status)
    if answer.status != 200:
        return HttpResponse(answer.html, status=answer.status)
    return redirect(f"{reverse('table_detail', args=[table_id])}#chat")


@require_GET
def chat_lines(request: HttpRequest, table_id: int, room: str) -> HttpResponse:
    """A room's lines before ``?before=<id>`` (scrolled up to), or after ``?after=<id>`` (the
    poll while the socket is closed); a fixed number of queries."""
    table = get_object_or_404(Table, pk=table_id)
    if room not in Room.values:
        raise Http404(_("There is no such room."))
    if not may_read(table, request.user, room):
        return HttpResponse(_("Only the players at this table read the players' room."), status=403)
    before = whole_number(request.GET.get("before", ""))
    after = whole_number(request.GET.get("after", ""))
    if ("before" in request.GET and before is None) or ("after" in request.GET and after is None):
        return HttpResponse(_("A line is named by a whole number."), status=400)
    if after is not None:
        newer = visible_lines(table.pk, room, request.user.pk).filter(pk__gt=after)
        lines = list(newer.order_by("id")[:PAGE_LINES])
        return HttpResponse(lines_html(table, request.user, room, lines, None))
    page = room_lines(table.pk, room, before=before, viewer_id=request.user.pk)
    return HttpResponse(lines_html(table, request.user, room, page.lines, page.more_before))


@login_required
@require_POST
def chat_report(request: SignedInRequest, line_id: int) -> HttpResponse:
    try:
        report = chat_services.chat_line_report(line_id=line_id, user=request.user)
    except GameError as exc:
        html = render_to_string("community/chat/status.html", {"room": "", "message": exc.message})
        return HttpResponse(html, status=exc.status)
    html = render_to_string(
        "community/chat/status.html",
        {"room": report.line.room, "message": _("Thank you: the moderators will read it.")},
    )
    return HttpResponse(html)


@login_required
@require_POST
def chat_spectators(request: SignedInRequest, table_id: int) -> HttpResponse:
    """The creator closes the table's room to spectators, or opens it again."""
    closed = request.POST.get("closed")
    if closed not in ("0", "1"):
        return HttpResponse(_("Choose whether spectators may write."), status=400)
    try:
        chat_services.table_chat_close_to_spectators(
            table_id=table_id, user=request.user, closed=closed == "1"
        )
    except GameError as exc:
        return HttpResponse(exc.message, status=exc.status)
    return redirect(f"{reverse('table_detail', args=[table_id])}#chat")
