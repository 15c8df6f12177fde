"""What a moderator (a member of the "moderators" group, in Django's admin) does with a report:
hide a chat line, mute its author for 15 minutes, a day or for good (they are told why and until
when), or disable an account (its open tables close, a bot takes its seats in running games as
after a timeout, it leaves the leaderboards and can no longer sign in). Every action is logged
with who and why, and the reports it answers leave the queue."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.notify import NoteKind
from community import broadcast
from community.models import ChatLine, ChatReport, ModerationAction, Notification, PlayerReport
from games.errors import Forbidden, GameError
from games.services.bot_moves import player_tables_leave

MODERATORS = "moderators"
Kind = ModerationAction.Kind
MUTES = {
    Kind.MUTE_15M: dt.timedelta(minutes=15),
    Kind.MUTE_DAY: dt.timedelta(days=1),
    Kind.MUTE_FOREVER: None,
}
# "For good": a date no one reaches.
FOREVER = dt.datetime(9999, 1, 1, tzinfo=dt.UTC)


def is_moderator(user: User) -> bool:
    return user.is_active and (user.is_superuser or user.groups.filter(name=MODERATORS).exists())


def _checked(moderator: User, reason: object) -> str:
    if not is_moderator(moderator):
        raise Forbidden(_("Only a moderator can do that."))
    text = " ".join(reason.split()) if isinstance(reason, str) else ""
    if not text:
        raise GameError(_("Say why: the player and the other moderators read it."))
    if len(text) > 500:
        raise GameError(_("Say it in at most %(count)d characters.") % {"count": 500})
    return text


def _logged(
    moderator: User, kind: str, player: User, reason: str, line: ChatLine | None = None
) -> None:
    ModerationAction.objects.create(
        moderator=moderator, kind=kind, player=player, line=line, reason=reason
    )
    now = timezone.now()
    if line is not None:
        ChatReport.objects.filter(line=line, handled_at__isnull=True).update(handled_at=now)
    if kind != Kind.HIDE_LINE:
        PlayerReport.objects.filter(reported=player, handled_at__isnull=True).update(handled_at=now)
        ChatReport.objects.filter(line__author=player, handled_at__isnull=True).update(
            handled_at=now
        )


@transaction.atomic
def line_hide(*, moderator: User, line_id: int, reason: object) -> ChatLine:
    """The line leaves every page, poll, replay and count; the open pages drop it now."""
    text = _checked(moderator, reason)
    line = ChatLine.objects.select_for_update().select_related("author").filter(pk=line_id).first()
    if line is None:
        raise GameError(_("There is no such line."))
    if line.hidden_at is None:
        line.hidden_at = timezone.now()
        line.save(update_fields=["hidden_at"])
        transaction.on_commit(lambda: broadcast.line_hidden(line))
        # Its words leave the bell too: a mention quoted them.
        Notification.objects.filter(
            kind=NoteKind.MENTION, actor=line.author, table_id=line.table_id, detail=line.text[:120]
        ).update(detail="")
    _logged(moderator, Kind.HIDE_LINE, line.author, text, line)
    return line


@transaction.atomic
def player_mute(*, moderator: User, player: User, kind: str, reason: object) -> User:
    """No chat line from ``player`` until the mute ends; they are told why and until when."""
    text = _checked(moderator, reason)
    if kind not in MUTES and kind != Kind.UNMUTE:
        raise GameError(_("Choose one of the offered mutes."))
    if kind == Kind.UNMUTE:
        player.muted_until, player.mute_reason = None, ""
    else:
        length = MUTES[Kind(kind)]
        player.muted_until = FOREVER if length is None else timezone.now() + length
        player.mute_reason = text[:200]
    player.save(update_fields=["muted_until", "mute_reason"])
    _logged(moderator, kind, player, text)
    return player


def account_disable(*, moderator: User, player: User, reason: object) -> int:
    """Disables ``player``'s account; returns how many tables it left."""
    text = _checked(moderator, reason)
    if player.pk == moderator.pk:
        raise GameError(_("You cannot disable your own account."))
    with transaction.atomic():
        User.objects.filter(pk=player.pk).update(is_active=False)
        player.is_active = False
        _logged(moderator, Kind.DISABLE, player, text)
    return player_tables_leave(user_id=player.pk)


def reports_dismiss(*, moderator: User, player: User, reason: object) -> None:
    """Nothing to do: the player's reports leave the queue, and that is logged too."""
    text = _checked(moderator, reason)
    with transaction.atomic():
        _logged(moderator, Kind.DISMISS, player, text)
