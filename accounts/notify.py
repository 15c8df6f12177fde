"""What a player may be told, and how: the kinds of notification, the three channels (the site's
bell, e-mail, browser push) and each player's switches for every kind on every channel.

They live in ``accounts`` (as follows and blocks do) so that ``games`` can ask whether a player
wants the "your turn" e-mail without importing ``community``, which writes and sends the rest.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class NoteKind(models.TextChoices):
    TURN = "turn", _("your turn")
    CHALLENGE = "challenge", _("a challenge to you")
    CHALLENGE_ACCEPTED = "challenge_accepted", _("your challenge accepted")
    CHALLENGE_DECLINED = "challenge_declined", _("your challenge declined")
    REMATCH = "rematch", _("a rematch offered")
    GAME_ENDED = "game_ended", _("a game ended")
    MENTION = "mention", _("your name in a chat")
    FOLLOWER = "follower", _("a new follower")
    # A tournament's round began: one a round, with the player's games in it (or their bye).
    TOURNAMENT_ROUND = "tournament_round", _("a tournament's round began")
    TOURNAMENT_ENDED = "tournament_ended", _("a tournament ended or was cancelled")


class NoteChannel(models.TextChoices):
    SITE = "site", _("on the site")
    EMAIL = "email", _("by e-mail")
    PUSH = "push", _("browser push")


# On unless the player turns them off. E-mail: the turn (today's reminder, with its own delay),
# what asks for an answer, and a tournament's rounds and end; the rest shows in the bell alone.
# Push only reaches a browser the player allowed, so every kind is on there once they do.
_EMAIL_ON = {
    NoteKind.TURN,
    NoteKind.CHALLENGE,
    NoteKind.REMATCH,
    NoteKind.TOURNAMENT_ROUND,
    NoteKind.TOURNAMENT_ENDED,
}


def default_switch(kind: str, channel: str) -> bool:
    return channel != NoteChannel.EMAIL or kind in _EMAIL_ON


def switch_key(kind: str, channel: str) -> str:
    return f"{kind}:{channel}"


def switch_on(switches: dict[str, bool], kind: str, channel: str) -> bool:
    """Whether a player with these stored switches (only what differs from the defaults is
    stored) wants ``kind`` on ``channel``."""
    value = switches.get(switch_key(kind, channel))
    return default_switch(kind, channel) if value is None else bool(value)
