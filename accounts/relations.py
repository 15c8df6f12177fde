"""Who refuses whom: the read side of follows and blocks, for every app that seats, lists or
tells players (``games`` refuses a blocked player's join without importing ``community``).

Each function here is one query, or a subquery to put inside a page's own query, so that a page
that hides blocked players costs no query more.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Case, F, Q, QuerySet, When

from accounts.models import Block

# A player follows at most this many others [lichess].
FOLLOW_CAP = 400


def hidden_authors(viewer_id: int) -> QuerySet[Block, int]:
    """The players whose chat lines ``viewer_id`` does not see (a subquery of ids)."""
    return Block.objects.filter(blocker_id=viewer_id, hide_lines=True).values_list(
        "blocked_id", flat=True
    )


def games_barred(user_id: int) -> QuerySet[Block, int]:
    """The players who are never seated with ``user_id``, either way round: those they blocked
    from games, and those who blocked them (a subquery of ids)."""
    return (
        Block.objects.filter(Q(blocker_id=user_id) | Q(blocked_id=user_id), no_games=True)
        .annotate(
            other=Case(When(blocker_id=user_id, then=F("blocked_id")), default=F("blocker_id"))
        )
        .values_list("other", flat=True)
    )


def out_of_sight(viewer_id: int) -> QuerySet[Block, int]:
    """The players who vanish from ``viewer_id``'s lists (friends, followers, online, people
    to challenge): everyone they blocked, whatever the switches, and everyone who blocked
    them from games (a subquery of ids)."""
    return (
        Block.objects.filter(Q(blocker_id=viewer_id) | Q(blocked_id=viewer_id, no_games=True))
        .annotate(
            other=Case(When(blocker_id=viewer_id, then=F("blocked_id")), default=F("blocker_id"))
        )
        .values_list("other", flat=True)
    )


@dataclass(frozen=True)
class Barred:
    """Why ``user_id`` may not sit with some of ``others``: they blocked one of them, or one of
    them blocked them (who is not said: a block is not told to the blocked)."""

    by_me: bool
    by_them: bool

    def __bool__(self) -> bool:
        return self.by_me or self.by_them


def barred_among(user_id: int, others: list[int]) -> Barred:
    """One query: whether ``user_id`` is barred from games with any of ``others``."""
    others = [other for other in others if other != user_id]
    if not others:
        return Barred(False, False)
    rows = Block.objects.filter(
        Q(blocker_id=user_id, blocked_id__in=others) | Q(blocked_id=user_id, blocker_id__in=others),
        no_games=True,
    ).values_list("blocker_id", flat=True)
    blockers = set(rows)
    return Barred(user_id in blockers, bool(blockers - {user_id}))


def contact_barred(*, sender_id: int, receiver_id: int) -> bool:
    """Whether the receiver blocked challenges and notifications from the sender (one query)."""
    return Block.objects.filter(
        blocker_id=receiver_id, blocked_id=sender_id, no_contact=True
    ).exists()
