"""Follows, blocks and reports of players: each one transaction; what they refuse is said.

A block has three switches (``accounts.models.Block``); making one ends the follows between the
two either way (they are no longer friends). Reporting a player hides their chat lines from the
reporter at once: a block with that one switch, or that switch added to a block there was.
"""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Block, Follow, User
from accounts.notify import NoteKind
from accounts.relations import FOLLOW_CAP
from community.models import Notification, PlayerReport
from community.services.notes import About, notes_read, notify
from games.errors import Conflict, Forbidden, GameError

REPORTS_PER_DAY = 10  # a reporter's reports of players in 24 hours; the next is refused
MAX_DETAILS_CHARS = 500


def _not_self(user: User, target: User, message: str) -> None:
    if user.pk == target.pk:
        raise GameError(message)


@transaction.atomic
def follow_add(*, user: User, target: User) -> Follow:
    """``user`` follows ``target``: at most ``FOLLOW_CAP`` players, never one blocked either
    way (the blocked player is not told why)."""
    _not_self(user, target, _("You cannot follow yourself."))
    User.objects.select_for_update().filter(pk=user.pk).first()  # one follow at a time: the cap
    existing = Follow.objects.filter(follower=user, followed=target).first()
    if existing is not None:
        return existing
    blocks = set(
        Block.objects.filter(
            Q(blocker=user, blocked=target) | Q(blocker=target, blocked=user)
        ).values_list("blocker_id", flat=True)
    )
    if user.pk in blocks:
        raise Conflict(_("You blocked this player: unblock them to follow them."))
    if blocks:
        raise Forbidden(_("You cannot follow this player."))
    if Follow.objects.filter(follower=user).count() >= FOLLOW_CAP:
        raise Conflict(
            _("You follow %(cap)d players already: stop following one first.") % {"cap": FOLLOW_CAP}
        )
    follow = Follow.objects.create(follower=user, followed=target)
    a_day_ago = timezone.now() - dt.timedelta(days=1)
    if not Notification.objects.filter(
        user=target, actor=user, kind=NoteKind.FOLLOWER, created_at__gte=a_day_ago
    ).exists():  # following again and again tells them once a day
        notify(kind=NoteKind.FOLLOWER, user_ids=[target.pk], about=About(actor=user))
    return follow


def follow_remove(*, user: User, target: User) -> None:
    Follow.objects.filter(follower=user, followed=target).delete()


@transaction.atomic
def block_set(
    *, user: User, target: User, hide_lines: bool, no_games: bool, no_contact: bool
) -> Block | None:
    """Blocks ``target`` with the chosen switches (all off: the block is lifted); the follows
    between the two end, either way."""
    _not_self(user, target, _("You cannot block yourself."))
    if not (hide_lines or no_games or no_contact):
        block_remove(user=user, target=target)
        return None
    block, _created = Block.objects.update_or_create(
        blocker=user,
        blocked=target,
        defaults={"hide_lines": hide_lines, "no_games": no_games, "no_contact": no_contact},
    )
    Follow.objects.filter(
        Q(follower=user, followed=target) | Q(follower=target, followed=user)
    ).delete()
    if no_contact or hide_lines:  # what they were told of the blocked player is gone
        notes_read(user=user, actor_id=target.pk)
    return block


def block_remove(*, user: User, target: User) -> None:
    Block.objects.filter(blocker=user, blocked=target).delete()


@transaction.atomic
def player_report(*, user: User, target: User, reason: object, details: object) -> PlayerReport:
    """Files a report for the moderators and hides the reported player's lines from the
    reporter at once; at most ``REPORTS_PER_DAY`` a day."""
    _not_self(user, target, _("You cannot report yourself."))
    if reason not in PlayerReport.Reason.values:
        raise GameError(_("Choose one of the offered reasons."))
    text = details if isinstance(details, str) else ""
    text = " ".join(text.split())
    if len(text) > MAX_DETAILS_CHARS:
        raise GameError(_("Say it in at most %(count)d characters.") % {"count": MAX_DETAILS_CHARS})
    User.objects.select_for_update().filter(pk=user.pk).first()  # one report at a time: the limit
    since = timezone.now() - dt.timedelta(days=1)
    if PlayerReport.objects.filter(reporter=user, created_at__gte=since).count() >= REPORTS_PER_DAY:
        raise Conflict(_("You have sent many reports today: the moderators are reading them."))
    report = PlayerReport.objects.create(
        reporter=user, reported=target, reason=str(reason), details=text
    )
    block = Block.objects.filter(blocker=user, blocked=target).first()
    if block is None:
        block_set(user=user, target=target, hide_lines=True, no_games=False, no_contact=False)
    elif not block.hide_lines:
        block.hide_lines = True
        block.save(update_fields=["hide_lines"])
    return report
