"""Everything the site holds about a player, as one JSON document they download.

``accounts`` writes the account's part (profile, settings, addresses, second factors by kind,
devices, vacations, follows and blocks); the apps above add theirs in their ``ready()``
(``export_section_register``): ``games`` their tables with moves and their ratings,
``community`` their chat lines, notifications, challenges and reports. Each part reads in a
fixed number of queries, however much the player has played. Nothing secret goes in: no
password hash, TOTP secret or recovery code, and no card another seat holds (a running game
exports the player's own view and own moves only).
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Protocol

from django.utils import timezone

from accounts.models import Block, Follow, User, Vacation

FORMAT = "card-tables-account-export"
VERSION = 1


class ExportSection(Protocol):
    def __call__(self, *, user: User) -> dict[str, Any]: ...


export_sections: dict[str, ExportSection] = {}


def export_section_register(name: str, section: ExportSection) -> None:
    """Adds a part of the export under ``name`` (an app above ``accounts``)."""
    export_sections[name] = section


def when(value: dt.datetime | dt.date | dt.time | None) -> str | None:
    """A date or time as ISO 8601 (UTC for a moment), or None."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).isoformat()
    return value.isoformat()


def account_export(*, user: User, now: dt.datetime | None = None) -> dict[str, Any]:
    """The whole export of ``user``'s data, ready for ``json.dumps``."""
    document: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": when(now or timezone.now()),
        "account": _account(user),
    }
    for name, section in export_sections.items():
        document[name] = section(user=user)
    return document


_SETTINGS = (
    "time_zone",
    "language",
    "reminder_delay",
    "display_contrast",
    "display_grain",
    "display_warmth",
    "display_theme",
    "confirm_moves",
    "challenges_from",
    "challenge_rating_range",
    "note_switches",
)


def _account(user: User) -> dict[str, Any]:
    from allauth.account.models import EmailAddress
    from allauth.mfa.models import Authenticator
    from allauth.usersessions.models import UserSession

    following = Follow.objects.filter(follower=user).select_related("followed")
    followers = Follow.objects.filter(followed=user).select_related("follower")
    blocks = Block.objects.filter(blocker=user).select_related("blocked")
    return {
        "username": user.username,
        "display_name": user.display_name,
        "email": user.email,
        "date_joined": when(user.date_joined),
        "last_login": when(user.last_login),
        "settings": {
            **{field: getattr(user, field) for field in _SETTINGS},
            "quiet_hours_start": when(user.quiet_hours_start),
            "quiet_hours_end": when(user.quiet_hours_end),
        },
        "muted_until": when(user.muted_until),
        "email_stopped": {"at": when(user.email_stopped_at), "why": user.email_stopped_why}
        if user.email_stopped_at
        else None,
        "email_addresses": [
            {"email": a.email, "verified": a.verified, "primary": a.primary}
            for a in EmailAddress.objects.filter(user=user).order_by("pk")
        ],
        # Which second factors, and since when; never their secrets.
        "second_factors": [
            {"type": a.type, "created_at": when(a.created_at), "last_used_at": when(a.last_used_at)}
            for a in Authenticator.objects.filter(user=user).order_by("pk")
        ],
        "devices": [
            {
                "ip": s.ip,
                "user_agent": s.user_agent,
                "signed_in_at": when(s.created_at),
                "last_seen_at": when(s.last_seen_at),
            }
            for s in UserSession.objects.filter(user=user).order_by("created_at")
        ],
        "vacations": [
            {
                "starts_at": when(v.starts_at),
                "ends_at": when(v.ends_at),
                "ended_at": when(v.ended_at),
            }
            for v in Vacation.objects.filter(user=user).order_by("starts_at")
        ],
        "following": [
            {"player": f.followed.public_name, "since": when(f.created_at)} for f in following
        ],
        "followers": [
            {"player": f.follower.public_name, "since": when(f.created_at)} for f in followers
        ],
        "blocks": [
            {
                "player": b.blocked.public_name,
                "since": when(b.created_at),
                "hide_lines": b.hide_lines,
                "no_games": b.no_games,
                "no_contact": b.no_contact,
            }
            for b in blocks
        ],
    }
