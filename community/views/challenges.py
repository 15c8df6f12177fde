"""Challenging a player, and answering challenges: thin views over
``community.services.challenges``; each answer goes back to the challenges page with what
happened, or to the new table when its game starts."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.models import User
from community.forms import ChallengeExtraForm, ChallengeSettingsForm, DeclineForm
from community.models import ChallengeInvite
from community.selectors.challenges import challenges_of
from community.services import challenges as challenge_services
from games.catalog import playable_games, playable_rules
from games.errors import GameError
from games.forms.tables import TableCreateForm
from games.views.requests import SignedInRequest


def _forms_page(
    request: SignedInRequest, receiver: User, bound: dict[str, Any] | None = None, status: int = 200
) -> HttpResponse:
    """One form a game, folded; the one posted (or ``?game=<slug>``) open."""
    games = []
    asked = request.GET.get("game", "")
    for rules in playable_games():
        if rules.max_players < 2:
            continue
        mine = bound if bound and bound["rules"] is rules else None
        games.append(
            {
                "rules": rules,
                "form": mine["form"] if mine else TableCreateForm(rules=rules),
                "extra": mine["extra"] if mine else ChallengeExtraForm(prefix=rules.slug),
                "open": mine is not None or (bound is None and asked == rules.slug),
            }
        )
    why_not = challenge_services.may_challenge(sender=request.user, receiver=receiver, game="")
    context = {"receiver": receiver, "games": games, "why_not": why_not}
    return render(request, "community/challenges/new.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def challenge_new(request: SignedInRequest, username: str) -> HttpResponse:
    """The challenge's settings, one game at a time (GET), and sending it (POST)."""
    receiver = get_object_or_404(User, username=username, is_active=True)
    if request.method == "GET":
        return _forms_page(request, receiver)
    rules = playable_rules(request.POST.get("game", ""))
    if rules is None:
        messages.error(request, _("There is no such game."))
        return _forms_page(request, receiver, status=400)
    form = TableCreateForm(request.POST, rules=rules)
    extra = ChallengeExtraForm(request.POST, prefix=rules.slug)
    bound = {"rules": rules, "form": form, "extra": extra}
    if not (form.is_valid() and extra.is_valid()):
        messages.error(request, _("Please choose a number of players and a time per move."))
        return _forms_page(request, receiver, bound, status=400)
    names = extra.other_names()
    found = {
        user.username: user for user in User.objects.filter(username__in=names, is_active=True)
    }
    missing = set(names) - found.keys()
    # Seated in the order they were named: the database returns them in no particular order.
    others = [found[name] for name in dict.fromkeys(names) if name in found]
    if missing:
        messages.error(
            request, _("There is no player called %(name)s.") % {"name": sorted(missing)[0]}
        )
        return _forms_page(request, receiver, bound, status=400)
    try:
        challenge_services.challenge_create(
            sender=request.user,
            receivers=[receiver, *others],
            bot_level=extra.cleaned_data["bot_level"],
            **form.table_arguments(),
        )
    except GameError as exc:
        messages.error(request, exc.message)
        return _forms_page(request, receiver, bound, status=exc.status)
    messages.success(request, _("Your challenge is sent."))
    return redirect("challenges")


@login_required
@require_GET
def challenges_page(request: SignedInRequest) -> HttpResponse:
    return render(request, "community/challenges/list.html", _list_context(request))


def _list_context(request: SignedInRequest) -> dict[str, Any]:
    return {
        "challenges": challenges_of(request.user),
        "reasons": ChallengeInvite.Reason.choices,
        "settings_form": ChallengeSettingsForm(instance=request.user),
    }


def _refused(request: SignedInRequest, exc: GameError) -> HttpResponse:
    messages.error(request, exc.message)
    context = _list_context(request)
    return render(request, "community/challenges/list.html", context, status=exc.status)


@login_required
@require_POST
def challenge_accept(request: SignedInRequest, challenge_id: int) -> HttpResponse:
    try:
        challenge = challenge_services.challenge_accept(
            challenge_id=challenge_id, user=request.user
        )
    except GameError as exc:
        return _refused(request, exc)
    if challenge.table_id is not None:
        return redirect("table_detail", table_id=challenge.table_id)
    messages.success(request, _("Accepted: the game starts when everyone invited has accepted."))
    return redirect("challenges")


@login_required
@require_POST
def challenge_decline(request: SignedInRequest, challenge_id: int) -> HttpResponse:
    form = DeclineForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else request.POST.get("reason")
    try:
        challenge_services.challenge_decline(
            challenge_id=challenge_id, user=request.user, reason=reason
        )
    except GameError as exc:
        return _refused(request, exc)
    messages.success(request, _("Declined."))
    return redirect("challenges")


@login_required
@require_POST
def challenge_withdraw(request: SignedInRequest, challenge_id: int) -> HttpResponse:
    try:
        challenge_services.challenge_withdraw(challenge_id=challenge_id, user=request.user)
    except GameError as exc:
        return _refused(request, exc)
    messages.success(request, _("Your challenge is withdrawn."))
    return redirect("challenges")


@login_required
@require_POST
def challenge_settings(request: SignedInRequest) -> HttpResponse:
    """Who may challenge me: everyone, players rated near me, friends only, nobody."""
    form = ChallengeSettingsForm(request.POST, instance=request.user)
    if not form.is_valid():
        messages.error(request, _("Choose who may challenge you from the list."))
        context = {**_list_context(request), "settings_form": form}
        return render(request, "community/challenges/list.html", context, status=400)
    challenge_services.challenge_settings_set(
        user=request.user,
        challenges_from=form.cleaned_data["challenges_from"],
        rating_range=form.cleaned_data["challenge_rating_range"],
    )
    messages.success(request, _("Saved: who may challenge you."))
    return redirect("challenges")
