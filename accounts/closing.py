"""Closing an account: what the player's data becomes when they leave for good.

The user row stays, so that the games they played keep their seats and everyone else's
results, ratings and replays stay whole; everything that names them goes. Their name reads
"a former player" everywhere (``User.public_name``), their address, password, second factors,
sessions, follows and blocks are deleted, and nothing signs in as them again. The apps above
``accounts`` add their own part in their ``ready()`` (``closing_steps``): ``games`` hands their
running seats to bots and forgets their boards, ``community`` blanks their chat lines and drops
their notifications and challenges. ``accounts`` never imports them.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Protocol

from django.db import transaction
from django.utils import timezone

from accounts.models import Block, Follow, User, Vacation

# A closed account's username: nothing of the old one, unique, and never a name to sign in with
# (the account is inactive and has no password, address or key).
FORMER_PREFIX = "former-"


class ClosingStep(Protocol):
    def __call__(self, *, user: User) -> None: ...


closing_steps: list[ClosingStep] = []


def closing_step_register(step: ClosingStep) -> None:
    """Adds what an app above ``accounts`` does when an account closes (once per step)."""
    if step not in closing_steps:
        closing_steps.append(step)


def account_close(*, user: User, now: dt.datetime | None = None) -> User:
    """Closes ``user``'s account for good (see the module's docstring); returns the user.

    The account part is one transaction, so from its commit the account neither signs in nor
    joins anything; each app's step runs after it, in transactions of its own (a running
    table's seat is taken over under that table's lock). Closing twice does nothing more.
    """
    from allauth.account.models import EmailAddress
    from allauth.mfa.models import Authenticator
    from allauth.usersessions.models import UserSession

    now = now or timezone.now()
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        if user.closed_at is not None:
            return user
        typed = [
            user.username,
            *EmailAddress.objects.filter(user=user).values_list("email", flat=True),
        ]
        user_email_before = user.email
        user.username = FORMER_PREFIX + secrets.token_hex(8)
        user.display_name = user.first_name = user.last_name = user.email = ""
        user.set_unusable_password()
        user.is_active = user.is_staff = user.is_superuser = False
        user.closed_at = now
        user.email_stopped_at, user.email_stopped_why = None, ""
        user.note_switches, user.notes_unread = {}, 0
        user.muted_until, user.mute_reason = None, ""
        user.calendar_key = None  # the calendar feed's address answers 404 from now
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
        EmailAddress.objects.filter(user=user).delete()
        Authenticator.objects.filter(user=user).delete()
        Vacation.objects.filter(user=user).delete()
        Follow.objects.filter(follower=user).delete()
        Follow.objects.filter(followed=user).delete()
        Block.objects.filter(blocker=user).delete()
        Block.objects.filter(blocked=user).delete()
        _forget_sign_in_attempts([*typed, user_email_before])
        for session in UserSession.objects.filter(user=user):
            session.end()
    for step in closing_steps:
        step(user=user)
    return user


def _forget_sign_in_attempts(names: list[str]) -> None:
    """django-axes keeps failed and successful sign-ins under the name or address typed
    (``accounts.throttle.login_name``): they go too."""
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    typed = {name.strip().casefold() for name in names if name}
    for model in (AccessAttempt, AccessFailureLog, AccessLog):
        model.objects.filter(username__in=typed).delete()
