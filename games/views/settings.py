"""The player's settings for reminders and vacations, and the one-click unsubscribe."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from accounts.calendar import calendar_token_make, calendar_token_revoke
from accounts.mailing import user_from_unsubscribe_token
from games.errors import GameError
from games.forms.settings import ConfirmMovesForm, ReminderSettingsForm, VacationForm
from games.selectors.vacations import vacation_context, vacation_current
from games.services import vacations
from games.services.play_settings import confirm_moves_update
from games.services.reminders import reminder_settings_update, reminders_off
from games.views.requests import SignedInRequest


def _page(
    request: SignedInRequest,
    reminder_form: ReminderSettingsForm | None = None,
    vacation_form: VacationForm | None = None,
    status: int = 200,
    confirm_form: ConfirmMovesForm | None = None,
    calendar_url: str | None = None,
) -> HttpResponse:
    return render(
        request,
        "settings/play.html",
        {
            "reminder_form": reminder_form or ReminderSettingsForm(instance=request.user),
            "vacation_form": vacation_form or VacationForm(),
            "confirm_form": confirm_form or ConfirmMovesForm(instance=request.user),
            "calendar_on": request.user.calendar_key is not None,
            "calendar_url": calendar_url,
            **vacation_context(request.user),
        },
        status=status,
    )


@login_required
def play_settings(request: SignedInRequest) -> HttpResponse:
    if request.method != "POST":
        return _page(request)
    form = ReminderSettingsForm(request.POST, instance=request.user)
    if not form.is_valid():
        return _page(request, reminder_form=form, status=400)
    reminder_settings_update(user=form.instance)  # is_valid() set the form's fields on it
    messages.success(request, _("Your reminder settings are saved."))
    return redirect("play_settings")


@login_required
@require_POST
def confirm_moves_set(request: SignedInRequest) -> HttpResponse:
    """The "Confirm my moves" choice; the table page reads it from the user."""
    form = ConfirmMovesForm(request.POST, instance=request.user)
    if not form.is_valid():
        return _page(request, confirm_form=form, status=400)
    confirm_moves_update(user=request.user, confirm_moves=form.cleaned_data["confirm_moves"])
    messages.success(request, _("Your choice for confirming moves is saved."))
    return redirect(f"{reverse('play_settings')}#confirm-moves")


@login_required
@require_POST
def vacation_start(request: SignedInRequest) -> HttpResponse:
    form = VacationForm(request.POST)
    if not form.is_valid():
        return _page(request, vacation_form=form, status=400)
    try:
        vacations.vacation_start(user=request.user, days=form.cleaned_data["days"])
    except GameError as exc:
        messages.error(request, exc.message)
        return _page(request, vacation_form=form, status=exc.status)
    messages.success(request, _("Enjoy your break: your turn-based clocks are stopped."))
    return redirect("play_settings")


@login_required
@require_POST
def vacation_end(request: SignedInRequest) -> HttpResponse:
    current = vacation_current(request.user)
    if current is not None:
        vacations.vacation_end(vacation_id=current.pk)
        messages.success(request, _("Welcome back: your clocks are running again."))
    return redirect("play_settings")


@never_cache  # the page shows the secret address, once
@login_required
@require_POST
def calendar_make(request: SignedInRequest) -> HttpResponse:
    """Makes the player's calendar address (again: the old one stops working) and shows it on
    this answer only; the site keeps only its hash."""
    token = calendar_token_make(user=request.user)
    url = settings.SITE_URL + reverse("calendar_feed", args=[token])
    return _page(request, calendar_url=url)


@login_required
@require_POST
def calendar_revoke(request: SignedInRequest) -> HttpResponse:
    calendar_token_revoke(user=request.user)
    messages.success(request, _("Your calendar address is turned off: it shows nothing now."))
    return redirect(f"{reverse('play_settings')}#calendar")


@csrf_exempt  # a mail client's one-click POST (RFC 8058) carries no CSRF token
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The link in every reminder; no sign-in needed, the signed token says who.

    A GET only asks (a mail provider's link scanner opens every link); a POST, from the
    page's button or a mail client's one-click (``List-Unsubscribe=One-Click``), decides.
    """
    user = user_from_unsubscribe_token(token=token)
    if user is None:
        return render(request, "settings/unsubscribe.html", {"invalid": True}, status=400)
    if request.method == "POST":
        reminders_off(user=user)
    return render(request, "settings/unsubscribe.html", {"player": user})
