"""The API settings page: a player's tokens (made, shown once, revoked) and the bot switches."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from api import selectors, services
from api.forms import RatedAgainstBotsForm, TokenForm
from games.errors import GameError
from games.views.requests import SignedInRequest

NEW_TOKEN = "api-new-token"  # the session key of a token just made, until its page shows it


def _page(
    request: SignedInRequest,
    form: TokenForm | None = None,
    secret: str = "",
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "api/tokens.html",
        {
            "form": form or TokenForm(),
            "rated_form": RatedAgainstBotsForm(
                initial={"rated_against_bots": request.user.rated_against_bots}
            ),
            "tokens": selectors.tokens_of(request.user),
            "secret": secret,
            "docs_url": reverse("api:openapi-view"),
            "site_url": settings.SITE_URL,
        },
        status=status,
    )


@never_cache
@login_required
def tokens_page(request: SignedInRequest) -> HttpResponse:
    if request.method != "POST":
        return _page(request, secret=request.session.pop(NEW_TOKEN, ""))
    form = TokenForm(request.POST)
    if not form.is_valid():
        return _page(request, form=form, status=400)
    try:
        _token, secret = services.token_make(
            user=request.user, name=form.cleaned_data["name"], scopes=form.cleaned_data["scopes"]
        )
    except GameError as exc:
        form.add_error(None, exc.message)
        return _page(request, form=form, status=exc.status)
    # Shown by the page the browser is sent to, once: reloading it neither shows the token
    # again nor posts the form again (which would make another).
    request.session[NEW_TOKEN] = secret
    return redirect(f"{reverse('api_tokens')}#token-secret")


@login_required
@require_POST
def token_revoke(request: SignedInRequest, token_id: int) -> HttpResponse:
    if services.token_revoke(user=request.user, token_id=token_id):
        messages.success(request, _("The token is revoked: it works no more."))
    else:
        messages.error(request, _("There is no such token of yours."))
    return redirect("api_tokens")


@login_required
@require_POST
def rated_against_bots(request: SignedInRequest) -> HttpResponse:
    form = RatedAgainstBotsForm(request.POST)
    form.is_valid()  # a checkbox: absent is off
    services.rated_against_bots_set(
        user=request.user, rated=bool(form.cleaned_data.get("rated_against_bots"))
    )
    messages.success(request, _("Saved."))
    return redirect("api_tokens")
