"""The bell's page, opening a notification, marking them read, and what to be told how: thin
views over ``community.services.notes``."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.notify import NoteChannel, NoteKind, switch_key
from community.models import Notification
from community.selectors.notes import notes_of
from community.services import notes as note_services
from community.services import push as push_services
from games.errors import GameError
from games.views.requests import SignedInRequest
from games.views.tables import whole_number


def _channels() -> list[NoteChannel]:
    """The channels the settings page offers: push where the site can send it."""
    push = [NoteChannel.PUSH] if push_services.push_enabled() else []
    return [NoteChannel.SITE, NoteChannel.EMAIL, *push]


@login_required
@require_GET
def notifications_page(request: SignedInRequest) -> HttpResponse:
    before = whole_number(request.GET.get("before", ""))
    page = notes_of(request.user, before=before)
    context = {"notes": page.notes, "older": page.older, "unread": request.user.notes_unread}
    return render(request, "community/notes/list.html", context)


@login_required
@require_GET
def notification_open(request: SignedInRequest, note_id: int) -> HttpResponse:
    """Follows a notification to what it is about, and marks it read."""
    note = (
        Notification.objects.filter(pk=note_id, user=request.user, shown=True)
        .select_related("actor", "challenge")
        .first()
    )
    if note is None:
        raise Http404(_("There is no such notification."))
    note_services.notes_read(user=request.user, note_ids=[note.pk])
    return redirect(note_services.note_link(note))


@login_required
@require_POST
def notifications_read(request: SignedInRequest) -> HttpResponse:
    count = note_services.notes_read(user=request.user)
    if count:
        messages.success(request, _("Everything is marked as read."))
    return redirect("notifications")


@login_required
@require_http_methods(["GET", "POST"])
def notification_settings(request: SignedInRequest) -> HttpResponse:
    """Each kind on or off for the site and e-mail: a grid of switches."""
    user = request.user
    channels = _channels()
    if request.method == "POST":
        known = {switch_key(k, c) for k in NoteKind.values for c in channels}
        unknown = [key for key in request.POST if key not in known and key != "csrfmiddlewaretoken"]
        if unknown or any(request.POST.getlist(key) != ["on"] for key in known & set(request.POST)):
            messages.error(request, _("Those switches are not on this page."))
            return _settings_page(request, status=400)
        switches = {key: True for key in known if key in request.POST}
        note_services.note_switches_set(user=user, switches=switches, channels=channels)
        messages.success(request, _("Saved: we tell you what you chose, as you chose."))
        return redirect("notification_settings")
    return _settings_page(request)


def _settings_page(request: SignedInRequest, status: int = 200) -> HttpResponse:
    user = request.user
    channels = _channels()
    rows = [
        {
            "label": label,
            "cells": [
                {
                    "key": switch_key(kind, channel),
                    "channel": channel.label,
                    "on": user.notified(kind, channel),
                }
                for channel in channels
            ],
        }
        for kind, label in NoteKind.choices
    ]
    context = {
        "rows": rows,
        "channels": channels,
        "settings_url": reverse("play_settings"),
        "push_key": settings.WEBPUSH_VAPID_PUBLIC_KEY if NoteChannel.PUSH in channels else "",
    }
    return render(request, "community/notes/settings.html", context, status=status)


@login_required
@require_POST
def push_subscribe(request: SignedInRequest) -> HttpResponse:
    """static/js/community/push.js: this browser allowed push (its subscription's endpoint and
    keys)."""
    try:
        push_services.push_subscribe(
            user=request.user,
            endpoint=request.POST.get("endpoint"),
            p256dh=request.POST.get("p256dh"),
            auth=request.POST.get("auth"),
        )
    except GameError as exc:
        return HttpResponse(exc.message, status=exc.status, content_type="text/plain")
    return HttpResponse(_("Push is on in this browser."), content_type="text/plain")


@login_required
@require_POST
def push_unsubscribe(request: SignedInRequest) -> HttpResponse:
    push_services.push_unsubscribe(user=request.user, endpoint=request.POST.get("endpoint", ""))
    return HttpResponse(_("Push is off in this browser."), content_type="text/plain")
