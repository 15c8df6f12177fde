"""Following, blocking and reporting a player, and the people page: thin views over
``community.services.people``; an HTMX request gets the changed controls back, a plain form
post is sent back to where it came from."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.models import User
from accounts.views import safe_next_path
from community.people_pages import follow_button_html, relation_html
from community.selectors.people import SWITCHES, people_of
from community.services import people as people_services
from games.errors import GameError
from games.views.requests import SignedInRequest


def _player(username: str) -> User:
    return get_object_or_404(User, username=username, is_active=True)


def _answer(
    request: SignedInRequest, player: User, message: str, status: int = 200
) -> HttpResponse:
    """The changed controls for HTMX (a refusal's reason in them, with its 4xx status); a plain
    post goes back to its page with the message."""
    if request.headers.get("HX-Request"):
        if request.POST.get("place") == "row":
            following = player.follower_rows.filter(follower=request.user).exists()
            html = follow_button_html(request, player, following, message)
        else:
            html = relation_html(request, player, message, refused=status >= 400)
        return HttpResponse(html, status=status)
    (messages.error if status >= 400 else messages.success)(request, message)
    fallback = reverse("player_profile", args=[player.username])
    target = safe_next_path(request.POST.get("next", ""), request.get_host(), request.is_secure())
    return redirect(target or fallback)


@login_required
@require_POST
def player_follow(request: SignedInRequest, username: str) -> HttpResponse:
    """``follow=1`` follows the player, ``follow=0`` stops."""
    player = _player(username)
    choice = request.POST.get("follow")
    if choice not in ("0", "1"):
        return _answer(request, player, _("Choose whether to follow this player."), 400)
    try:
        if choice == "1":
            people_services.follow_add(user=request.user, target=player)
            message = _("You follow %(name)s.") % {"name": player.public_name}
        else:
            people_services.follow_remove(user=request.user, target=player)
            message = _("You no longer follow %(name)s.") % {"name": player.public_name}
    except GameError as exc:
        return _answer(request, player, exc.message, exc.status)
    return _answer(request, player, message)


@login_required
@require_POST
def player_block(request: SignedInRequest, username: str) -> HttpResponse:
    """The block's three switches (checkboxes); ``unblock`` lifts it."""
    player = _player(username)
    switches = {name: request.POST.get(name) == "on" for name in SWITCHES}
    if "unblock" in request.POST:
        switches = dict.fromkeys(SWITCHES, False)
    try:
        block = people_services.block_set(user=request.user, target=player, **switches)
    except GameError as exc:
        return _answer(request, player, exc.message, exc.status)
    if block is None:
        message = _("%(name)s is no longer blocked.") % {"name": player.public_name}
    else:
        message = _("%(name)s is blocked.") % {"name": player.public_name}
    return _answer(request, player, message)


@login_required
@require_POST
def player_report(request: SignedInRequest, username: str) -> HttpResponse:
    player = _player(username)
    try:
        people_services.player_report(
            user=request.user,
            target=player,
            reason=request.POST.get("reason"),
            details=request.POST.get("details", ""),
        )
    except GameError as exc:
        return _answer(request, player, exc.message, exc.status)
    message = _("Thank you: the moderators will read it. You no longer see %(name)s's lines.") % {
        "name": player.public_name
    }
    return _answer(request, player, message)


@login_required
@require_GET
def people_page(request: SignedInRequest) -> HttpResponse:
    """Friends (who is online now first), the players one follows, one's followers, blocks."""
    return render(request, "community/people/people.html", {"people": people_of(request.user)})
