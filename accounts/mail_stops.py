"""Addresses the site stopped e-mailing: mail to them bounced, or its reader reported it as
spam (docs/deploy.md, "Bounces and complaints").

An operator marks them, from their mail provider's bounce and complaint reports, with
``manage.py email_stopped`` or the players' admin; from then on no reminder or notification
e-mail goes to the address (``accounts.mailing.address_mailable``), while the bell still shows
every notification, and the account's own e-mails (a password reset, a sign-in code) still go.
The stop ends when the player's address changes to one they confirmed, or they confirm it again
from its confirmation link: both prove that mail reaches them.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import EmailStop, User


def mail_stop(*, address: str, why: EmailStop, now: dt.datetime | None = None) -> int:
    """Stops e-mail to every player whose address is ``address`` (in any case); returns how
    many players' e-mail it stopped now. A second report of an address already stopped changes
    nothing (its first time and reason stay)."""
    address = address.strip()
    if not address:
        return 0
    return User.objects.filter(email__iexact=address, email_stopped_at__isnull=True).update(
        email_stopped_at=now or timezone.now(), email_stopped_why=why
    )


def mail_stops(*, addresses: list[str], why: EmailStop) -> dict[str, int]:
    """``mail_stop`` for each address, in one transaction: how many players each one stopped."""
    now = timezone.now()
    with transaction.atomic():
        return {address: mail_stop(address=address, why=why, now=now) for address in addresses}


def mail_stop_clear(*, user: User) -> bool:
    """E-mail to the player's address starts again; whether it was stopped."""
    cleared = User.objects.filter(pk=user.pk, email_stopped_at__isnull=False).update(
        email_stopped_at=None, email_stopped_why=""
    )
    user.email_stopped_at, user.email_stopped_why = None, ""
    return bool(cleared)


# allauth's signals (connected in accounts.apps): a confirmed address of the player's own.


def address_confirmed(sender: Any, email_address: Any, **kwargs: Any) -> None:
    """The player confirmed an address from its link: if it is (now) their address, mail to it
    starts again."""
    user = email_address.user
    if email_address.verified and user.email.lower() == email_address.email.lower():
        mail_stop_clear(user=user)


def address_changed(sender: Any, user: User, to_email_address: Any, **kwargs: Any) -> None:
    """The player's address changed to a confirmed one: the stop was the old address's."""
    if to_email_address is not None and to_email_address.verified:
        mail_stop_clear(user=user)
