"""What a closed account leaves among the players (``accounts.closing``): its chat lines read
"deleted" (their words are gone from the database too), the words of its mentions leave the
others' bells, its own notifications and push subscriptions go, and its challenges end: those
it sent are withdrawn, those it was sent are declined."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.notify import NoteKind
from community.models import (
    Challenge,
    ChallengeInvite,
    ChatLine,
    ChatRead,
    Notification,
    PushSubscription,
)


@transaction.atomic
def player_community_close(*, user: User) -> None:
    ChatLine.objects.filter(author=user).update(text="")
    ChatRead.objects.filter(user=user).delete()
    Notification.objects.filter(user=user).delete()
    Notification.objects.filter(actor=user, kind=NoteKind.MENTION).update(detail="")
    PushSubscription.objects.filter(user=user).delete()
    pending = Challenge.objects.filter(status=Challenge.Status.PENDING)
    pending.filter(sender=user).update(status=Challenge.Status.WITHDRAWN)
    invited = pending.filter(invites__receiver=user).values("pk")
    ChallengeInvite.objects.filter(
        receiver=user, answer=ChallengeInvite.Answer.WAITING, challenge__in=invited
    ).update(
        answer=ChallengeInvite.Answer.DECLINED,
        reason=ChallengeInvite.Reason.GENERIC,
        answered_at=timezone.now(),
    )
    Challenge.objects.filter(pk__in=invited).update(status=Challenge.Status.DECLINED)
