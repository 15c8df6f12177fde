"""The bell's page: a player's latest notifications, at a fixed number of queries."""

from __future__ import annotations

from dataclasses import dataclass

from accounts.models import User
from accounts.relations import hidden_authors
from community.models import Notification

PAGE = 50


@dataclass(frozen=True)
class NotesPage:
    notes: list[Notification]
    older: int | None  # the id to ask for the notifications before, if there are more


def notes_of(user: User, before: int | None = None) -> NotesPage:
    """The latest ``PAGE`` notifications the bell shows (those before ``before``), with who and
    what they are about: one query. A blocked player's notes vanish (their mentions, follows)."""
    notes = (
        Notification.objects.filter(user=user, shown=True)
        .exclude(actor_id__in=hidden_authors(user.pk))
        .select_related("actor", "table", "challenge", "player")
        .order_by("-id")
    )
    if before is not None:
        notes = notes.filter(pk__lt=before)
    found = list(notes[: PAGE + 1])
    older = found[PAGE - 1].pk if len(found) > PAGE else None
    return NotesPage(found[:PAGE], older)
