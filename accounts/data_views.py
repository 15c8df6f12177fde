"""The player's data: the page that offers it, its download, and closing the account.

Both the download and the closing ask the player to confirm who they are first (allauth's
reauthentication: their password, a passkey or a code), so a device left signed in gives
neither away.
"""

from __future__ import annotations

import json

from allauth.account.decorators import reauthentication_required
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.closing import account_close
from accounts.export import account_export
from accounts.forms import CloseAccountForm
from accounts.models import User


def _page(request: HttpRequest, form: CloseAccountForm, status: int = 200) -> HttpResponse:
    return render(request, "accounts/data.html", {"close_form": form}, status=status)


@login_required
@require_GET
def data_page(request: HttpRequest) -> HttpResponse:
    return _page(request, CloseAccountForm())


@login_required
@require_GET
@reauthentication_required
def data_download(request: HttpRequest) -> HttpResponse:
    """Everything the site holds about the player, as one JSON file."""
    assert isinstance(request.user, User)  # login_required
    now = timezone.now()
    document = account_export(user=request.user, now=now)
    response = HttpResponse(
        json.dumps(document, ensure_ascii=False, indent=1), content_type="application/json"
    )
    name = f"card-tables-{request.user.username}-{now:%Y-%m-%d}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
@reauthentication_required
def account_close_view(request: HttpRequest) -> HttpResponse:
    form = CloseAccountForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    assert isinstance(request.user, User)  # login_required
    account_close(user=request.user)
    logout(request)
    return redirect("account_closed")


@require_http_methods(["GET"])
def account_closed(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/closed.html")
