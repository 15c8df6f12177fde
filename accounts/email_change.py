"""A player's new e-mail address is used once they confirmed it, never before.

allauth's "change e-mail" mode (``ACCOUNT_CHANGE_EMAIL``) keeps one address: a new one waits,
unconfirmed, beside it, and replaces it when its confirmation link is followed; reminders and
notification e-mails go to ``user.email`` (``accounts.mailing``), the old address until then.
Two gaps of that mode when confirming is optional (``ACCOUNT_EMAIL_VERIFICATION``: a player's
sign-up address is often unconfirmed) are closed here:

- adding a new address would drop an unconfirmed current one and put the new, unconfirmed one
  in its place at once (allauth replaces "the address being changed to", the last unconfirmed
  one): the form keeps the current address and replaces only an earlier pending one;
- the page's "make primary" (not on the page in this mode, but still answered) would make an
  unconfirmed address the player's address: it is refused.
"""

from __future__ import annotations

from typing import Any

from allauth.account import app_settings
from allauth.account.forms import AddEmailForm
from allauth.account.internal.flows.email_verification import send_verification_email_to_address
from allauth.account.models import EmailAddress
from allauth.account.views import EmailView
from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _


class ChangeEmailForm(AddEmailForm):
    """allauth's "change to" form (``ACCOUNT_FORMS["add_email"]``)."""

    def save(self, request: HttpRequest) -> EmailAddress:
        if not app_settings.CHANGE_EMAIL or app_settings.EMAIL_VERIFICATION_BY_CODE_ENABLED:
            return super().save(request)
        user = self.user
        assert user is not None  # the page is a signed-in player's
        with transaction.atomic():
            # An earlier change not confirmed yet gives way to this one; the current stays.
            pending(user).delete()
            address = EmailAddress.objects.create(
                user=user, email=self.cleaned_data["email"].lower()
            )
        send_verification_email_to_address(request, address)
        return address


def pending(user: Any) -> Any:
    """The player's addresses waiting for confirmation: every unconfirmed one but their own."""
    return EmailAddress.objects.filter(user_id=user.pk, verified=False).exclude(
        email__iexact=user.email or ""
    )


class ChangeEmailView(EmailView):
    """allauth's e-mail page, at its address (config/urls.py)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if "action_primary" in request.POST and "action_add" not in request.POST:
            chosen = str(request.POST.get("email", ""))
            unconfirmed = EmailAddress.objects.filter(
                user_id=request.user.pk, email__iexact=chosen, verified=False
            )
            if chosen and unconfirmed.exists():
                messages.error(
                    request,
                    _(
                        "Confirm this address first: follow the link in the e-mail we sent "
                        "to it. Until then we keep writing to your current address."
                    ),
                )
                response = self.get(request, *args, **kwargs)
                response.status_code = 400
                return response
        return super().post(request, *args, **kwargs)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        if app_settings.CHANGE_EMAIL:
            user = self.request.user
            waiting = pending(user).order_by("pk").last()
            if waiting is not None:
                # The current address, confirmed or not, and the one it changes to.
                current = EmailAddress.objects.filter(
                    user_id=user.pk, email__iexact=user.email or ""
                ).first()
                context["current_emailaddress"] = current or context["current_emailaddress"]
                context["new_emailaddress"] = waiting
        return context


email_page = ChangeEmailView.as_view()
