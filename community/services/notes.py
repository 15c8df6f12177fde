"""Notifications: made where something happens (a challenge, a follow, a chat line that names a
player), from games' events (a turn, a game's end, a rematch offer, ``community.jobs``) or by an
app above (a tournament's round and end: ``tournaments.services.telling``), read in the bell and
sent by e-mail (``note_mails_send``).

A kind's switches for the site and e-mail (``accounts.notify``) are read when it is made; a
player who blocked the one who caused it from contact gets nothing. ``User.notes_unread`` counts
what the bell shows unread, in the same transaction as every change of it; the player's open
pages get the new count after the commit.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Greatest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import ngettext

from accounts.mailing import absolute_url, address_mailable, notice_send, unsubscribe_url
from accounts.models import REMINDERS_OFF, Block, User
from accounts.notify import NoteChannel, NoteKind, default_switch, switch_key
from community import broadcast
from community.models import Notification, PushSubscription
from community.services.push import push_due_in, push_enabled
from games.models import Seat, Table
from games.services.presence import seat_present
from games.services.reminders import turn_reminders_drop

# A notification's e-mail waits this long at least (or the player's reminder delay, if longer):
# time to see it in the site first, when the e-mail is not sent.
NOTE_MAIL_DELAY = dt.timedelta(minutes=15)
# At most this many players are told of one chat line that names them.
MENTIONS_PER_LINE = 5
MENTION = re.compile(r"(?<![\w@])@([\w.+-]{1,150})")
BATCH = 200


@dataclass(frozen=True)
class About:
    """What a notification is about: who caused it, at which table or challenge; from an app
    above, whom else it is about, where it leads and the facts its text shows
    (``Notification.link``, ``data``)."""

    actor: User | None = None
    table_id: int | None = None
    challenge_id: int | None = None
    detail: str = ""
    player: User | None = None
    link: str = ""
    data: dict[str, Any] = field(default_factory=dict)


def notify(*, kind: NoteKind, user_ids: Iterable[int], about: About | None = None) -> int:
    """Tells these players of ``kind`` on the channels they want it on; returns how many rows it
    made. Never the one who caused it, nor a player who blocked them from contact."""
    about = about or About()
    ids = set(user_ids)
    actor = about.actor
    if actor is not None:
        ids.discard(actor.pk)
        ids -= set(
            Block.objects.filter(
                blocker_id__in=ids, blocked_id=actor.pk, no_contact=True
            ).values_list("blocker_id", flat=True)
        )
    if not ids:
        return 0
    now = timezone.now()
    notes = []
    browsers = _with_browsers(ids)
    for user in User.objects.filter(pk__in=ids, is_active=True):
        shown = user.notified(kind, NoteChannel.SITE)
        mail = kind != NoteKind.TURN and _mailable(user) and user.notified(kind, NoteChannel.EMAIL)
        push = user.pk in browsers and user.notified(kind, NoteChannel.PUSH)
        if not (shown or mail or push):
            continue
        delay = max(NOTE_MAIL_DELAY, dt.timedelta(minutes=max(user.reminder_delay, 0)))
        notes.append(
            Notification(
                user=user,
                kind=kind,
                actor=actor,
                table_id=about.table_id,
                challenge_id=about.challenge_id,
                detail=about.detail[:120],
                player=about.player,
                link=about.link,
                data=about.data,
                shown=shown,
                created_at=now,
                mail_due_at=now + delay if mail else None,
                push_due_at=now + push_due_in(user) if push else None,
            )
        )
    if not notes:
        return 0
    with transaction.atomic():
        made = [note for note in notes if _stored(note)]
        counted = [note.user_id for note in made if note.shown]
        if counted:
            User.objects.filter(pk__in=counted).update(notes_unread=F("notes_unread") + 1)
            transaction.on_commit(lambda: broadcast.notes_changed(counted, kind=kind))
    return len(made)


def _with_browsers(user_ids: set[int]) -> set[int]:
    """Which of these players allowed push in a browser (no query while push is off)."""
    if not push_enabled():
        return set()
    return set(
        PushSubscription.objects.filter(user_id__in=user_ids).values_list("user_id", flat=True)
    )


def _mailable(user: User) -> bool:
    """An address whose mail did not bounce (``accounts.mail_stops``), and e-mail not stopped
    (the one-click unsubscribe stops every e-mail)."""
    return address_mailable(user) and user.reminder_delay != REMINDERS_OFF


def _stored(note: Notification) -> bool:
    """Saves ``note``; a "your turn" already unread at that table is moved on instead (its one
    row), and counts as nothing new."""
    if note.kind != NoteKind.TURN:
        note.save()
        return True
    moved = Notification.objects.filter(
        user_id=note.user_id, table=note.table_id, kind=NoteKind.TURN, read_at__isnull=True
    ).update(created_at=note.created_at, push_due_at=note.push_due_at, pushed_at=None)
    if moved:
        return False
    try:
        with transaction.atomic():
            note.save()
    except IntegrityError:  # made at the same moment by another worker
        return False
    return True


def notes_read(
    *,
    user: User,
    note_ids: list[int] | None = None,
    table_id: int | None = None,
    kinds: Iterable[str] | None = None,
    actor_id: int | None = None,
) -> int:
    """Marks what ``user`` has read: these notifications, those of a table or from a player, or
    all; a "your turn" read in the site spares them its e-mail. Returns how many."""
    if not user.notes_unread and table_id is not None:
        return 0  # the table page asks on every load: nothing to read costs no query
    return _read(
        user=user,
        note_ids=note_ids,
        table_id=table_id,
        kinds=kinds,
        actor_id=actor_id,
        by_player=True,
    )


def _read(
    *,
    user: User,
    note_ids: list[int] | None = None,
    table_id: int | None = None,
    kinds: Iterable[str] | None = None,
    actor_id: int | None = None,
    by_player: bool = False,
) -> int:
    with transaction.atomic():
        # The player's row first, as ``notify`` takes it: the count stays that of the rows.
        User.objects.select_for_update().filter(pk=user.pk).first()
        unread = Notification.objects.filter(user=user, read_at__isnull=True)
        if note_ids is not None:
            unread = unread.filter(pk__in=note_ids)
        if table_id is not None:
            unread = unread.filter(table_id=table_id)
        if kinds is not None:
            unread = unread.filter(kind__in=list(kinds))
        if actor_id is not None:
            unread = unread.filter(actor_id=actor_id)
        found = list(unread.values_list("pk", "table_id", "kind", "shown"))
        if not found:
            return 0
        Notification.objects.filter(pk__in=[row[0] for row in found]).update(read_at=timezone.now())
        shown = sum(1 for row in found if row[3])
        if shown:
            User.objects.filter(pk=user.pk).update(
                notes_unread=Greatest(F("notes_unread") - shown, Value(0))
            )
            user.notes_unread = max(user.notes_unread - shown, 0)
            transaction.on_commit(lambda: broadcast.notes_changed([user.pk]))
        turns = [row[1] for row in found if row[2] == NoteKind.TURN and row[1] is not None]
        if by_player and turns:
            turn_reminders_drop(user=user, table_ids=turns)
    return len(found)


def note_switches_set(
    *, user: User, switches: dict[str, bool], channels: Iterable[str] = NoteChannel.values
) -> None:
    """Saves the player's switches for every kind on ``channels`` (a switch left out is off;
    the other channels keep theirs). Only those that differ from the defaults are stored."""
    stored = dict(user.note_switches or {})
    for kind in NoteKind.values:
        for channel in channels:
            key = switch_key(kind, channel)
            on = bool(switches.get(key, False))
            stored.pop(key, None)
            if on != default_switch(kind, channel):
                stored[key] = on
    user.note_switches = stored
    user.save(update_fields=["note_switches"])


# What games' events tell (``community.jobs``).


def _present(seat: Seat, now: dt.datetime) -> bool:
    return seat_present(seat=seat, now=now)


def turn_notes(*, table_id: int) -> None:
    """A turn started at the table: "your turn" to each player it waits for who does not have it
    open; a player it no longer waits for has read theirs (they moved)."""
    now = timezone.now()
    seats = list(Seat.objects.filter(table_id=table_id, user__isnull=False))
    waiting = [
        s.user_id
        for s in seats
        if s.user_id is not None and s.is_waiting and not s.is_bot and not _present(s, now)
    ]
    moved = {seat.user_id for seat in seats if not seat.is_waiting}
    _read_turns(table_id, only=moved)
    notify(kind=NoteKind.TURN, user_ids=waiting, about=About(table_id=table_id))


def _read_turns(table_id: int, only: set[int | None] | None = None) -> None:
    """The unread "your turn" at this table of these players (all, without ``only``) is read."""
    unread = Notification.objects.filter(
        table_id=table_id, kind=NoteKind.TURN, read_at__isnull=True
    )
    for user in User.objects.filter(pk__in=unread.values("user_id")):
        if only is None or user.pk in only:
            _read(user=user, table_id=table_id, kinds=[NoteKind.TURN])


def game_ended_notes(*, table_id: int) -> None:
    """The game ended: its players who are not looking are told; no turn waits for them there."""
    now = timezone.now()
    seats = list(Seat.objects.filter(table_id=table_id, user__isnull=False))
    _read_turns(table_id)
    away = [seat.user_id for seat in seats if seat.user_id and not _present(seat, now)]
    notify(kind=NoteKind.GAME_ENDED, user_ids=away, about=About(table_id=table_id))


def rematch_notes(*, table_id: int, user_id: int) -> None:
    """A player offered the others of the finished table a rematch."""
    actor = User.objects.filter(pk=user_id).first()
    others = Seat.objects.filter(table_id=table_id, user__isnull=False).exclude(user_id=user_id)
    notify(
        kind=NoteKind.REMATCH,
        user_ids=others.values_list("user_id", flat=True),
        about=About(actor=actor, table_id=table_id),
    )


def mention_notes(*, table: Table, author: User, text: str) -> None:
    """A chat line that names players seated at its table (``@name``) tells them, unless they
    hid its author's lines."""
    names = {name.rstrip(".").lower() for name in MENTION.findall(text)}
    if not names:
        return
    seated = (
        Seat.objects.filter(table=table, user__isnull=False)
        .exclude(user=author)
        .exclude(
            user_id__in=Block.objects.filter(blocked=author, hide_lines=True).values("blocker")
        )
        .filter(_spellings(names))
        .values_list("user_id", "user__username")
    )
    ids = [user_id for user_id, name in seated if name.lower() in names][:MENTIONS_PER_LINE]
    notify(kind=NoteKind.MENTION, user_ids=ids, about=About(author, table.pk, detail=text))


def _spellings(names: set[str]) -> Q:
    query = Q()
    for name in names:
        query |= Q(user__username__iexact=name)
    return query


# The e-mail of notifications, for the kinds a player wants by e-mail.


def sweep_note_mails(now: dt.datetime | None = None) -> int:
    """Sends every player whose notifications' e-mail fell due one e-mail of them all."""
    now = now or timezone.now()
    users = (
        Notification.objects.filter(
            mail_due_at__lte=now, emailed_at__isnull=True, read_at__isnull=True
        )
        .order_by("mail_due_at")
        .values_list("user_id", flat=True)[:BATCH]
    )
    return sum(note_mails_send(user_id=user_id, now=now) for user_id in sorted(set(users)))


def note_mails_send(*, user_id: int, now: dt.datetime) -> int:
    """One e-mail of the player's due notifications (outside their quiet hours, which postpone
    it); 1 if it went. The rows stay locked while it goes: a second worker skips them."""
    with transaction.atomic():
        due = list(
            Notification.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(
                user_id=user_id, mail_due_at__lte=now, emailed_at__isnull=True, read_at__isnull=True
            )
            .select_related("user", "actor", "table", "challenge", "player")
            .order_by("id")
        )
        if not due:
            return 0
        user = due[0].user
        later = user.quiet_until(now)
        if later is not None:
            Notification.objects.filter(pk__in=[n.pk for n in due]).update(mail_due_at=later)
            return 0
        wanted = [n for n in due if _mailable(user) and user.notified(n.kind, NoteChannel.EMAIL)]
        if wanted:
            _send_notes(user, wanted)
        Notification.objects.filter(pk__in=[n.pk for n in due]).update(emailed_at=now)
    return 1 if wanted else 0


def _send_notes(user: User, notes: list[Notification]) -> None:
    unsubscribe = unsubscribe_url(user=user)
    language = user.language or settings.LANGUAGE_CODE
    with translation.override(language), timezone.override(user.zone):
        context = {
            "user": user,
            "notes": [
                (
                    note,
                    absolute_url(note_link(note)),
                    [(t, absolute_url(reverse("table_detail", args=[t]))) for t in note.tables],
                )
                for note in notes
            ],
            "notes_url": absolute_url(reverse("notifications")),
            "settings_url": absolute_url(reverse("notification_settings")),
            "unsubscribe_url": unsubscribe,
            "site_name": settings.SITE_NAME,
            "site_url": settings.SITE_URL,
        }
        subject = ngettext(
            "Something new for you at %(site)s",
            "%(count)d new things for you at %(site)s",
            len(notes),
        ) % {"count": len(notes), "site": settings.SITE_NAME}
        text = render_to_string("emails/notes.txt", context)
        html = render_to_string("emails/notes.html", context)
    notice_send(user=user, subject=subject, text=text, html=html, unsubscribe=unsubscribe)


def note_link(note: Notification) -> str:
    """Where a notification leads: its link, its table, the challenges, or the follower's
    profile."""
    if note.link:
        return note.link
    if note.kind in (NoteKind.CHALLENGE, NoteKind.CHALLENGE_DECLINED):
        return reverse("challenges")
    if note.kind == NoteKind.CHALLENGE_ACCEPTED and note.challenge and note.challenge.table_id:
        return reverse("table_detail", args=[note.challenge.table_id])
    if note.table_id is not None:
        return reverse("table_detail", args=[note.table_id])
    if note.actor is not None:
        return reverse("player_profile", args=[note.actor.username])
    return reverse("notifications")
