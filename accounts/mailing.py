"""The site's notification e-mails (a turn's reminder, ``games.services.reminders``; the
notifications', ``community.services.notes``): who may get one, and the one way one is sent.

Every notification e-mail goes to the player's address, ``user.email`` (the address they
signed up with, or a new one once they confirmed it: ``accounts.email_change``), never to one
whose mail stopped (``accounts.mail_stops``), and carries ``List-Unsubscribe`` with RFC 8058's
one-click ``List-Unsubscribe-Post``: a mail client's "unsubscribe" stops every such e-mail at
once (the ``unsubscribe`` page). The account's own e-mails (a confirmation, a password reset,
a sign-in code) are allauth's, and no notification: they carry no such header.
"""

from __future__ import annotations

from django.conf import settings
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.urls import reverse

from accounts.models import User

UNSUBSCRIBE_SALT = "reminders-unsubscribe"


def user_unsubscribe_token(*, user: User) -> str:
    return signing.dumps(user.pk, salt=UNSUBSCRIBE_SALT)


def user_from_unsubscribe_token(*, token: str) -> User | None:
    try:
        user_id = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    return User.objects.filter(pk=user_id).first()


def absolute_url(path: str) -> str:
    """A path of the site as a link in an e-mail."""
    return f"{settings.SITE_URL}{path}"


def unsubscribe_url(*, user: User) -> str:
    """The player's one-click unsubscribe link, for an e-mail's footer and its header."""
    return absolute_url(reverse("unsubscribe", args=[user_unsubscribe_token(user=user)]))


def address_mailable(user: User) -> bool:
    """Whether a notification e-mail may go to the player: an address, and mail to it not
    stopped by a bounce or a complaint."""
    return bool(user.email) and user.email_stopped_at is None


def notice_send(*, user: User, subject: str, text: str, html: str, unsubscribe: str) -> bool:
    """Sends one notification e-mail (its text and HTML parts, rendered in the player's
    language) to the player's address with the one-click unsubscribe headers; ``unsubscribe``
    is the link the parts show (``unsubscribe_url``). Returns whether it went: nothing goes to
    an address whose mail stopped."""
    if not address_mailable(user):
        return False
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        to=[user.email],
        headers={
            "List-Unsubscribe": f"<{unsubscribe}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    message.send()
    return True
