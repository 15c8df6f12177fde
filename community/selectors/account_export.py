"""A player's part of the community in their data export (``accounts.export``): the chat lines
they wrote, what they were told, the challenges they sent and were sent, and the reports they
made. A fixed number of queries however much there is."""

from __future__ import annotations

from typing import Any

from accounts.export import when
from accounts.models import User
from community.models import (
    Challenge,
    ChallengeInvite,
    ChatLine,
    Notification,
    PlayerReport,
    PushSubscription,
)


def community_export(*, user: User) -> dict[str, Any]:
    return {
        "chat_lines": [
            {
                "table": line.table_id,
                "room": line.room,
                "text": line.text,
                "at": when(line.created_at),
                "hidden_by_a_moderator": line.hidden_at is not None,
            }
            for line in ChatLine.objects.filter(author=user).order_by("pk")
        ],
        "notifications": [
            {
                "kind": note.kind,
                "from": note.actor.public_name if note.actor else None,
                "table": note.table_id,
                "challenge": note.challenge_id,
                "detail": note.detail,
                "about": note.player.public_name if note.player else None,
                "link": note.link,
                "data": note.data,
                "at": when(note.created_at),
                "read_at": when(note.read_at),
                "emailed_at": when(note.emailed_at),
            }
            for note in Notification.objects.filter(user=user)
            .select_related("actor", "player")
            .order_by("pk")
        ],
        "challenges_sent": [
            {
                "challenge": c.pk,
                "game": c.game,
                "players": c.num_seats,
                "seconds_per_move": c.seconds_per_move,
                "rated": c.rated,
                "options": c.options,
                "status": c.status,
                "sent_at": when(c.created_at),
                "table": c.table_id,
                "invited": [
                    {"player": i.receiver.public_name, "answer": i.answer, "reason": i.reason}
                    for i in c.invites.all()
                ],
            }
            for c in Challenge.objects.filter(sender=user)
            .prefetch_related("invites__receiver")
            .order_by("pk")
        ],
        "challenges_received": [
            {
                "challenge": i.challenge_id,
                "from": i.challenge.sender.public_name,
                "game": i.challenge.game,
                "answer": i.answer,
                "reason": i.reason,
                "answered_at": when(i.answered_at),
            }
            for i in ChallengeInvite.objects.filter(receiver=user)
            .select_related("challenge__sender")
            .order_by("pk")
        ],
        "reports_made": [
            {
                "player": r.reported.public_name,
                "reason": r.reason,
                "details": r.details,
                "at": when(r.created_at),
            }
            for r in PlayerReport.objects.filter(reporter=user)
            .select_related("reported")
            .order_by("pk")
        ],
        "push_subscriptions": [
            {"since": when(p.created_at)} for p in PushSubscription.objects.filter(user=user)
        ],
    }
