"""The bell's page, opening a notification, marking them read, and what to be told how: thin
views over ``community.services.notes``."""

from __future__ import annotations

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
from games.views.requests import SignedInRequest
from games.views.tables import whole_number

# The channels the settings page offers (push joins them where the site can send it).
CHANNELS = [NoteChannel.SITE, NoteChannel.EMAIL]


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
    if request.method == "POST":
        known = {switch_key(k, c) for k in NoteKind.values for c in CHANNELS}
        unknown = [key for key in request.POST if key not in known and key != "csrfmiddlewaretoken"]
        if unknown or any(request.POST.getlist(key) != ["on"] for key in known & set(request.POST)):
            messages.error(request, _("Those switches are not on this page."))
            return _settings_page(request, status=400)
        switches = {key: True for key in known if key in request.POST}
        note_services.note_switches_set(user=user, switches=switches, channels=CHANNELS)
        messages.success(request, _("Saved: we tell you what you chose, as you chose."))
        return redirect("notification_settings")
    return _settings_page(request)


def _settings_page(request: SignedInRequest, status: int = 200) -> HttpResponse:
    user = request.user
    rows = [
        {
            "label": label,
            "cells": [
                {
                    "key": switch_key(kind, channel),
                    "channel": channel.label,
                    "on": user.notified(kind, channel),
                }
                for channel in CHANNELS
            ],
        }
        for kind, label in NoteKind.choices
    ]
    context = {"rows": rows, "channels": CHANNELS, "settings_url": reverse("play_settings")}
    return render(request, "community/notes/settings.html", context, status=status)
