from allauth.account.views import login as allauth_login
from allauth.mfa.webauthn.views import LoginWebAuthnView, ReauthenticateWebAuthnView
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.forms import Form
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST
from django.views.generic.edit import FormView

from accounts.display import COOKIE_NAME as DISPLAY_COOKIE
from accounts.display import FIELDS as DISPLAY_FIELDS
from accounts.display import DisplaySettings
from accounts.forms import DisplayForm, ProfileForm


@login_required
def profile_edit(request: HttpRequest) -> HttpResponse:
    form = ProfileForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("Your profile is saved."))
        return redirect("profile_edit")
    status = 400 if request.method == "POST" else 200
    context = {"form": form}
    return render(request, "accounts/profile_edit.html", context, status=status)


@login_required
@require_http_methods(["GET", "POST"])
def devices_page(request: HttpRequest) -> HttpResponse:
    """The devices the player is signed in on; a POST signs out all but this one."""
    from accounts.sessions import devices_of, others_end

    user_id = int(request.user.pk or 0)  # signed in: login_required
    refused = request.method == "POST" and request.POST.get("action") != "logout"
    if refused:  # not the page's button (allauth's form posts "logout" too): nothing ends
        messages.error(request, _("That was not the button to sign out: nothing has changed."))
    elif request.method == "POST":
        ended = others_end(user_id=user_id, current_key=request.session.session_key)
        messages.success(
            request,
            ngettext(
                "Signed out on %(count)d other device.",
                "Signed out on %(count)d other devices.",
                ended,
            )
            % {"count": ended},
        )
        return redirect("usersessions_list")
    devices = devices_of(user_id)
    current = request.session.session_key
    context = {
        "devices": [(device, device.session_key == current) for device in devices],
        "others": sum(device.session_key != current for device in devices),
    }
    return render(
        request, "usersessions/usersession_list.html", context, status=400 if refused else 200
    )


def safe_next_path(target: str, host: str, secure: bool) -> str:
    """``target`` if it is a path on this site ("/" and no second slash), else the home page.

    Never handed to ``redirect()``, which takes a bare word for a URL name (and answered
    "abc" with a 500); a scheme, a host, a leading "//" or "/\\" or a control character
    all lead home instead of off the site.
    """
    local = (
        target.startswith("/")
        and target[1:2] not in ("/", "\\")
        and target.isprintable()
        and url_has_allowed_host_and_scheme(target, {host}, require_https=secure)
    )
    return target if local else "/"


def _back_to_next(request: HttpRequest) -> HttpResponseRedirect:
    """Back to the page a header form was sent from (its ``next`` field), if it is ours."""
    target = safe_next_path(request.POST.get("next", ""), request.get_host(), request.is_secure())
    return HttpResponseRedirect(target)


def _remember(request: HttpRequest, response: HttpResponse, name: str, value: str) -> None:
    """A visitor's choice, kept a year like the language cookie's settings say: Secure in
    production (as the session and CSRF cookies), HttpOnly and SameSite=Lax (only the server
    reads it; no script needs it)."""
    response.set_cookie(
        name,
        value,
        max_age=365 * 24 * 3600,
        samesite="Lax",
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        secure=settings.LANGUAGE_COOKIE_SECURE or request.is_secure(),
    )


@require_POST
def language_set(request: HttpRequest) -> HttpResponse:
    """The header's language selector: remembered on the profile, or in a cookie for visitors."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        return HttpResponseBadRequest(_("That language is not offered."))
    if request.user.is_authenticated:
        request.user.language = language
        request.user.save(update_fields=["language"])
    response = _back_to_next(request)
    _remember(request, response, settings.LANGUAGE_COOKIE_NAME, language)
    return response


@require_POST
def display_set(request: HttpRequest) -> HttpResponse:
    """The header's display settings (theme and sliders): saved on the profile, or in a cookie
    for visitors.

    "reset" restores the defaults. The menu's script saves in the background
    (``X-Requested-With: fetch``) and gets a 204; a plain form post goes back to its page.
    A post without a theme (a page from before it) keeps the theme chosen before.
    """
    if request.POST.get("reset"):
        chosen = DisplaySettings()
    else:
        form = DisplayForm(request.POST)
        if not form.is_valid():
            return HttpResponseBadRequest(_("Those display settings are not valid."))
        levels = {name: form.cleaned_data[name] for name in DISPLAY_FIELDS}
        theme = form.cleaned_data["theme"] or DisplaySettings.of_viewer(request).theme
        chosen = DisplaySettings(**levels, theme=theme)
    if request.user.is_authenticated:
        chosen.save_to(request.user)
    if request.headers.get("X-Requested-With") == "fetch":
        response: HttpResponse = HttpResponse(status=204)
    else:
        response = _back_to_next(request)
    # Kept for signed-in players too, so the table looks the same after signing out.
    _remember(request, response, DISPLAY_COOKIE, chosen.to_cookie())
    return response


class PasskeySignInView(LoginWebAuthnView):
    """allauth's sign-in by passkey, but a credential it refuses (a key it does not know, a
    payload that is none) answers 400 with the sign-in page and why, where allauth's redirects
    to that page with a 302."""

    def form_invalid(self, form: Form) -> HttpResponse:
        for message in form.errors.get("credential", []) or [_("Incorrect code.")]:
            messages.error(self.request, str(message))
        self.request.method = "GET"  # the sign-in page as it is shown, its own form empty
        response = allauth_login(self.request)
        response.status_code = 400
        return response


class PasskeyReauthenticateView(ReauthenticateWebAuthnView):
    """allauth's "confirm it is you" by passkey, but a credential it refuses answers 400 with the
    same page and why, where allauth's sends a signed-in player to the sign-in page (which sends
    them on to the lobby)."""

    def form_invalid(self, form: Form) -> HttpResponse:
        for message in form.errors.get("credential", []) or [_("Incorrect code.")]:
            messages.error(self.request, str(message))
        return FormView.form_invalid(self, form)  # the page again; accounts.middleware: 400
