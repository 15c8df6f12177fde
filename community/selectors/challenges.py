"""The challenges a player has to answer and those they sent, each list in a fixed number of
queries; a challenge past its ``expires_at`` reads as expired (no sweep marks it)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from accounts.models import User
from accounts.relations import out_of_sight
from community.models import Challenge, ChallengeInvite

RECENT_SHOWN = 10  # answered, withdrawn or expired challenges listed under the open ones


@dataclass
class Challenges:
    to_answer: list[Challenge]  # waiting for this player's answer
    sent: list[Challenge]  # this player's, still waiting for others
    recent: list[Challenge]  # ended: started, declined, withdrawn or expired


def _with_people(challenges: QuerySet[Challenge]) -> QuerySet[Challenge]:
    invites = ChallengeInvite.objects.select_related("receiver").order_by("position")
    return challenges.select_related("sender").prefetch_related(
        Prefetch("invites", queryset=invites)
    )


def challenges_of(user: User) -> Challenges:
    """Three lists in six queries (each list, and the invites of its challenges)."""
    now = timezone.now()
    live = {"status": Challenge.Status.PENDING, "expires_at__gt": now}
    to_answer = challenges_to_answer(user)
    sent = _with_people(Challenge.objects.filter(**live, sender=user)).order_by("-created_at")
    mine = Challenge.objects.filter(sender=user) | Challenge.objects.filter(invites__receiver=user)
    ended = mine.exclude(status=Challenge.Status.PENDING, expires_at__gt=now).distinct()
    recent = _with_people(ended).order_by("-created_at")[:RECENT_SHOWN]
    return Challenges(list(to_answer), list(sent), list(recent))


def challenges_to_answer(user: User) -> QuerySet[Challenge]:
    """The open challenges waiting for ``user``'s answer, newest first (two queries)."""
    return _with_people(
        Challenge.objects.filter(
            status=Challenge.Status.PENDING,
            expires_at__gt=timezone.now(),
            invites__receiver=user,
            invites__answer=ChallengeInvite.Answer.WAITING,
        ).exclude(sender_id__in=out_of_sight(user.pk))
    ).order_by("-created_at")
