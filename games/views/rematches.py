"""A finished game's rematch: "Rematch" offers it (or accepts the offer), "Decline" withdraws it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from django_htmx.http import HttpResponseClientRedirect

from games.errors import GameError
from games.services import tables as table_services
from games.views.requests import SignedInRequest


@login_required
@require_POST
def table_rematch(request: SignedInRequest, table_id: int) -> HttpResponse:
    """Opens the finished table's next table, or seats this player at it, and goes there; a
    refusal (not a player of it, not over yet, no such table) says why on the finished page."""
    try:
        following = table_services.table_rematch(table_id=table_id, user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
        if request.htmx:
            return render(request, "partials/messages.html", status=exc.status)
        if exc.status == 404:
            return redirect("lobby")
        return redirect("table_detail", table_id=table_id)
    url = reverse("table_detail", args=[following.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
def table_rematch_decline(request: SignedInRequest, table_id: int) -> HttpResponse:
    """Declines the finished table's rematch offer, for everyone; back to the finished table."""
    try:
        table_services.table_rematch_decline(table_id=table_id, user=request.user)
    except GameError as exc:
        messages.error(request, exc.message)
        if request.htmx:
            return render(request, "partials/messages.html", status=exc.status)
        if exc.status == 404:
            return redirect("lobby")
        return redirect("table_detail", table_id=table_id)
    url = reverse("table_detail", args=[table_id])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
