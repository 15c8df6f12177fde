"""The reminder e-mail: one per player, listing every table waiting for them.

A seat's turn reminder and its "time is nearly up" warning fall due at a stored time
(``Seat.reminder_due_at``, ``Seat.warn_at``, set by ``games.services.clocks``); the sweep turns
those due into ``Reminder`` rows (``reminders_queue``), then sends each player one e-mail of
them all (``reminders_send_due``, a batch of players at a time).

The player's cadence (``User.reminder_cadence``) says how many a turn gets: "delay", one
reminder and one warning; "daily", "every" and "escalating", a reminder at each time
``clocks.reminder_due_next`` gives, the next one scheduled when one is queued (each a
``Reminder`` row of its own ``step``), never more often than the player chose.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.mailing import absolute_url, address_mailable, notice_send, unsubscribe_url

# The one-click unsubscribe's token is accounts.mailing's (every notification e-mail's); its
# names stay importable from here.
from accounts.mailing import user_from_unsubscribe_token as user_from_unsubscribe_token
from accounts.mailing import user_unsubscribe_token as user_unsubscribe_token
from accounts.models import REMINDERS_OFF, ReminderCadence, User
from games import extensions
from games.models import Reminder, Seat, Table
from games.services import clocks
from games.services.pace import pace_stale
from games.services.presence import PRESENCE, seat_present

logger = logging.getLogger(__name__)


def reminders_off(*, user: User) -> None:
    """Stops this player's reminder e-mails, and the ones already scheduled for their turns."""
    with transaction.atomic():
        User.objects.filter(pk=user.pk).update(reminder_delay=REMINDERS_OFF)
        Seat.objects.filter(user=user).update(reminder_due_at=None, warn_at=None)
        pace_stale(user_id=user.pk, now=timezone.now())  # measured against their delay
    user.reminder_delay = REMINDERS_OFF


@transaction.atomic
def reminder_settings_update(*, user: User, now: dt.datetime | None = None) -> None:
    """Saves the settings a valid settings form set on ``user`` (the reminder delay and
    cadence, the quiet hours) and moves the reminders and warnings of the turns waiting for
    them to match.

    One transaction: a sweep never finds the new delay with the old schedule, or the reverse.
    """
    user.save()
    now = now or timezone.now()
    pace_stale(user_id=user.pk, now=now)  # their pace is measured against their delay
    for seat in Seat.objects.select_related("table").filter(user=user, is_waiting=True):
        seat.user = user
        clocks.seat_reminder_reschedule(seat=seat, table=seat.table, now=now)
        seat.save(update_fields=["reminder_due_at", "warn_at"])


# A due seat's table is read for its clock's settings: not its game (a state of kilobytes).
_TABLE_UNREAD = ("table__state", "table__outcome", "table__options")
# The field of ``Seat`` that says when each kind of notice falls due.
DUE_FIELDS = {Reminder.Kind.TURN: "reminder_due_at", Reminder.Kind.WARNING: "warn_at"}
BATCH = 200


def reminders_queue(*, kind: Reminder.Kind, now: dt.datetime) -> int:
    """Turns the seats due for a notice of ``kind`` into ``Reminder`` rows (once per turn), or
    postpones them: the player has the table open, or it is their quiet hours. Returns how many
    rows it added.

    At most ``BATCH`` seats a call, locked and skipped by a second sweep running at once; a
    seat no longer waiting, a bot's or a player's who wants no e-mail just loses its due time.
    """
    field = DUE_FIELDS[kind]
    last_sent: dict[int, dt.datetime | None] = {}
    rows: list[tuple[Seat, int]] = []  # the notices to queue: a seat's, and its step
    with transaction.atomic():
        due = list(
            Seat.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("user", "table")
            .defer(*_TABLE_UNREAD)
            .filter(**{f"{field}__lte": now})
            .order_by(field)[:BATCH]
        )
        for seat in due:
            user = seat.user
            later = None
            wanted = seat.is_waiting and user is not None and not seat.is_bot
            again = (  # a cadence that reminds again while the turn waits
                wanted
                and user is not None
                and kind == Reminder.Kind.TURN
                and user.reminder_cadence != ReminderCadence.DELAY
            )
            if wanted and not again and kind == Reminder.Kind.TURN and _seen_this_turn(seat, now):
                wanted = False  # they saw the turn at the table: the e-mail would repeat it
            if wanted and user is not None and user.wants_reminders and address_mailable(user):
                step: int | None = 0
                if again:
                    if user.pk not in last_sent:
                        last_sent[user.pk] = _last_sent(user)
                    later, step = _again(seat, user, now, last_sent[user.pk])
                elif seat.seen_at and seat.seen_at >= now - PRESENCE:
                    later = seat.seen_at + PRESENCE  # they are looking at it right now
                else:
                    later = user.quiet_until(now)
                if step is not None and (again or later is None):
                    rows.append((seat, step))
            setattr(seat, field, later)
        # Two statements for the batch, not four or five a seat.
        Seat.objects.bulk_update(due, [field])
        return _reminders_add(rows, kind=kind)


def _reminders_add(rows: list[tuple[Seat, int]], *, kind: Reminder.Kind) -> int:
    """Adds a ``Reminder`` row for each (seat, step) not queued before (the unique row of its
    seat, turn, kind and step); how many it added. One statement."""
    if not rows:
        return 0
    table = Reminder._meta.db_table
    values = ", ".join(["(%s, %s, %s, %s, %s, %s, NULL)"] * len(rows))
    params: list[int | str | dt.datetime | None] = []
    created_at = timezone.now()
    for seat, step in rows:
        params += [seat.pk, seat.user_id, seat.turn, kind.value, step, created_at]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (seat_id, user_id, turn, kind, step, created_at, sent_at)"
            f" VALUES {values} ON CONFLICT (seat_id, turn, kind, step) DO NOTHING RETURNING id",
            params,
        )
        return len(cursor.fetchall())


def _last_sent(user: User) -> dt.datetime | None:
    """When the player's last reminder e-mail went out (of any table)."""
    last: dt.datetime | None = Reminder.objects.filter(user=user, sent_at__isnull=False).aggregate(
        last=Max("sent_at")
    )["last"]
    return last


def _again(
    seat: Seat, user: User, now: dt.datetime, last_sent: dt.datetime | None
) -> tuple[dt.datetime | None, int | None]:
    """For a cadence that reminds again ("daily", "every", "escalating"), a seat due now: when
    its next notice falls due, and the ``step`` of the one to queue now (None: none now).

    No notice now while the player has the table open (that point is skipped), in their quiet
    hours, before their cadence lets them have another e-mail (postponed), or once an
    escalating turn had its three."""
    table = seat.table

    def next_after(moment: dt.datetime, sent: dt.datetime | None) -> dt.datetime | None:
        return clocks.reminder_due_next(
            user=user,
            turn_start=seat.waiting_since or now,
            deadline=seat.deadline,
            budget=dt.timedelta(seconds=table.seconds_per_move),
            after=moment,
            last_sent=sent,
        )

    if seat_present(seat=seat, now=now):
        return next_after(now, last_sent), None  # they are looking at it right now
    quiet = user.quiet_until(now)
    if quiet is not None:
        return quiet, None
    floor = clocks.reminder_not_before(user=user, last_sent=last_sent)
    if floor is not None and now < floor:
        if user.reminder_cadence == ReminderCadence.EVERY:  # along with the player's next one
            held = (user.quiet_until(floor) or floor).astimezone(dt.UTC)
            return (held if seat.deadline and held < seat.deadline else None), None
        return next_after(now, last_sent), None  # the next digest
    sent = Reminder.objects.filter(seat=seat, turn=seat.turn, kind=Reminder.Kind.TURN).count()
    if user.reminder_cadence == ReminderCadence.ESCALATING and sent >= clocks.ESCALATING_STEPS:
        return None, None
    return next_after(now, now), sent


def _seen_this_turn(seat: Seat, now: dt.datetime) -> bool:
    """Whether the player had the table open during this turn and left it (while they have it
    open, the notice is postponed instead)."""
    seen, since = seat.seen_at, seat.waiting_since
    return bool(seen and since and since <= seen < now - PRESENCE)


def turn_reminders_drop(*, user: User, table_ids: list[int]) -> int:
    """The player read in the site that it is their turn at these tables: no "your turn" e-mail
    repeats it (a "time is nearly up" warning still comes). Returns how many seats it spared.

    Only with the "delay" cadence: a player who chose their own times gets them."""
    if user.reminder_cadence != ReminderCadence.DELAY:
        return 0
    return Seat.objects.filter(
        user=user, table_id__in=table_ids, is_waiting=True, reminder_due_at__isnull=False
    ).update(reminder_due_at=None)


# Players whose notices and waiting tables are read at once (``reminders_send_due``).
SEND_BATCH = 50


def reminders_send_due(*, now: dt.datetime) -> int:
    """Sends every player with pending notices one e-mail of them all; returns how many went.

    A batch of players at a time: their pending notices, their waiting tables and the apps'
    notes read at once; then each player's e-mail in a transaction of its own, their rows
    marked sent as it commits. So an e-mail never goes twice: a worker killed while sending
    leaves that player's rows pending, and those it sent before marked. An e-mail the server
    refuses leaves its player's rows pending for the next sweep; the others go.
    """
    users = Reminder.objects.filter(sent_at__isnull=True).values_list("user_id", flat=True)
    ordered = sorted(set(users))
    return sum(
        _batch_send(user_ids=ordered[k : k + SEND_BATCH], now=now)
        for k in range(0, len(ordered), SEND_BATCH)
    )


def _batch_send(*, user_ids: list[int], now: dt.datetime) -> int:
    pending: dict[int, list[Reminder]] = {}
    for reminder in (
        Reminder.objects.filter(user_id__in=user_ids, sent_at__isnull=True)
        .select_related("seat", "user")
        .order_by("user_id", "pk")
    ):
        pending.setdefault(reminder.user_id, []).append(reminder)
    wanted = [user_id for user_id, theirs in pending.items() if _wanted(theirs)]
    waiting: dict[int | None, list[Seat]] = {}
    seats = (
        Seat.objects.filter(user_id__in=wanted, is_waiting=True, table__status=Table.Status.RUNNING)
        .select_related("table")
        .order_by("user_id", "deadline")
    )
    for seat in seats if wanted else []:
        waiting.setdefault(seat.user_id, []).append(seat)
    # What the apps above add to each row, in each player's language: unread chat lines.
    tables = [
        (pending[user_id][0].user, [seat.table for seat in waiting.get(user_id, [])])
        for user_id in wanted
    ]
    notes: dict[tuple[int, int], list[str]] = {}
    for hook in extensions.reminder_notes:
        for key, note in hook(tables).items():
            notes.setdefault(key, []).append(note)
    sent = 0
    for user_id, theirs in pending.items():
        try:
            sent += _player_send(theirs, waiting.get(user_id, []), notes, now=now)
        except Exception:  # the server refused or went away: this player's turn comes again
            logger.exception("the reminder e-mail to player %s failed", user_id)
    return sent


def _wanted(theirs: list[Reminder]) -> bool:
    """Whether a player's pending notices make an e-mail: one is for a turn still waiting, and
    they still want e-mails at an address that takes them."""
    user = theirs[0].user
    current = any(r.seat.is_waiting and r.seat.turn == r.turn for r in theirs)
    return current and user.wants_reminders and address_mailable(user)


@transaction.atomic
def _player_send(
    theirs: list[Reminder],
    waiting: list[Seat],
    notes: dict[tuple[int, int], list[str]],
    *,
    now: dt.datetime,
) -> int:
    """One player's e-mail of their pending notices (read with the batch); 1 if it went.

    Its rows still pending are marked sent first, in one statement that locks them: a second
    worker at the same rows waits for this commit, then finds them sent. A failed e-mail rolls
    the mark back."""
    with connection.cursor() as cursor:
        ids = [r.pk for r in theirs]
        cursor.execute(
            f"UPDATE {Reminder._meta.db_table} SET sent_at = %s"
            f" WHERE id IN ({', '.join(['%s'] * len(ids))}) AND sent_at IS NULL RETURNING id",
            [now, *ids],
        )
        marked = {row[0] for row in cursor.fetchall()}
    theirs = [r for r in theirs if r.pk in marked]
    if not theirs or not _wanted(theirs):
        return 0  # sent by another worker meanwhile, or nothing left to say
    warnings = [
        r.seat
        for r in theirs
        if r.kind == Reminder.Kind.WARNING and r.seat.is_waiting and r.seat.turn == r.turn
    ]
    return _send(theirs[0].user, warnings=warnings, waiting=waiting, notes=notes)


def _send(
    user: User,
    warnings: list[Seat],
    waiting: list[Seat],
    notes: dict[tuple[int, int], list[str]],
) -> int:
    """One player's e-mail: ``waiting`` are their seats whose turn it is, by deadline;
    ``notes``, the apps' notes by (player, table)."""
    warned = {seat.pk for seat in warnings}
    unsubscribe = unsubscribe_url(user=user)
    language = getattr(user, "language", None) or settings.LANGUAGE_CODE
    with translation.override(language), timezone.override(user.zone):
        rows = [
            {
                "table": seat.table,
                "url": absolute_url(reverse("table_detail", args=[seat.table_id])),
                "deadline": seat.deadline,
                "warning": seat.pk in warned,
                "notes": notes.get((user.pk, seat.table_id), []),
            }
            for seat in waiting
        ]
        context = {
            "user": user,
            "rows": rows,
            "unsubscribe_url": unsubscribe,
            "settings_url": absolute_url(reverse("play_settings")),
            "site_name": settings.SITE_NAME,
            "site_url": settings.SITE_URL,
        }
        if warnings:
            subject = _("Time is nearly up in one of your games")
        else:
            subject = ngettext(
                "A game is waiting for your move",
                "%(count)d games are waiting for your move",
                len(rows),
            ) % {"count": len(rows)}
        text = render_to_string("emails/reminder.txt", context)
        html = render_to_string("emails/reminder.html", context)
    sent = notice_send(user=user, subject=subject, text=text, html=html, unsubscribe=unsubscribe)
    return int(sent)
