"""The table's chat: its lines in two rooms, what each reader has read, the reports of lines, and
whether a table's room is closed to spectators."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.notify import NoteKind
from games.models import Table


class Room(models.TextChoices):
    """The players' room: the seated people alone read and write it (a spectator's page, JSON
    and socket never get it). The table's room: everyone at the table page."""

    PLAYERS = "players", _("players")
    TABLE = "table", _("table")


class ChatLine(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_lines")
    room = models.CharField(_("room"), max_length=8, choices=Room.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_lines"
    )
    text = models.CharField(_("text"), max_length=500)
    created_at = models.DateTimeField(_("written"), auto_now_add=True)
    # Hidden by a moderator (community.services.moderation): no page, poll or replay shows it.
    hidden_at = models.DateTimeField(_("hidden"), null=True, blank=True)

    class Meta:
        verbose_name = _("chat line")
        verbose_name_plural = _("chat lines")
        indexes = [
            # A room's latest lines, and the lines before one (older ones on scroll).
            models.Index(fields=["table", "room", "-id"], name="chat_room_latest"),
            # A writer's latest lines, for the flood and repeat limits.
            models.Index(fields=["author", "-created_at"], name="chat_author_latest"),
        ]

    def __str__(self) -> str:
        return f"{self.author}: {self.text[:40]}"

    @property
    def author_name(self) -> str:
        return self.author.public_name


class ChatRead(models.Model):
    """The last line a reader has seen at a table (both rooms): the lobby counts the rest."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    last_line_id = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "table"], name="chat_read_once_per_table")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} read table {self.table_id} up to line {self.last_line_id}"


class ChatReport(models.Model):
    """A reader's report of a line, for the moderators (Django's admin)."""

    line = models.ForeignKey(ChatLine, on_delete=models.CASCADE, related_name="reports")
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_reports"
    )
    created_at = models.DateTimeField(_("reported"), auto_now_add=True)
    # A moderator acted on it (or dismissed it): out of the queue.
    handled_at = models.DateTimeField(_("handled"), null=True, blank=True)

    class Meta:
        verbose_name = _("chat report")
        verbose_name_plural = _("chat reports")
        constraints = [
            models.UniqueConstraint(fields=["line", "reporter"], name="chat_report_once")
        ]

    def __str__(self) -> str:
        return f"{self.reporter} on {self.line}"


class TableChat(models.Model):
    """A table's chat settings; no row: both rooms open."""

    table = models.OneToOneField(Table, on_delete=models.CASCADE, related_name="chat")
    spectators_closed = models.BooleanField(
        _("table's room closed to spectators"),
        default=False,
        help_text=_("Spectators read the table's room but cannot write in it."),
    )

    def __str__(self) -> str:
        closed = "closed to" if self.spectators_closed else "open to"
        return f"table {self.table_id}: {closed} spectators"


class PlayerReport(models.Model):
    """A report of a player (not of one line), for the moderators; filing it hides the
    player's chat lines from the reporter at once (``community.services.people``)."""

    class Reason(models.TextChoices):
        ABUSE = "abuse", _("insults or harassment")
        SPAM = "spam", _("spam or advertising")
        CHEATING = "cheating", _("cheating or playing with two accounts")
        STALLING = "stalling", _("leaving games to run out the clock")
        OTHER = "other", _("something else")

    reported = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_received"
    )
    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reports_made"
    )
    reason = models.CharField(_("reason"), max_length=12, choices=Reason.choices)
    details = models.CharField(_("details"), max_length=500, blank=True)
    created_at = models.DateTimeField(_("reported"), auto_now_add=True)
    handled_at = models.DateTimeField(_("handled"), null=True, blank=True)

    class Meta:
        verbose_name = _("player report")
        verbose_name_plural = _("player reports")
        indexes = [models.Index(fields=["reporter", "-created_at"], name="report_reporter_latest")]

    def __str__(self) -> str:
        return f"{self.reporter} on {self.reported}: {self.reason}"


class Challenge(models.Model):
    """A player's invitation of one or more others to a table of a game with chosen options; it
    starts when every invited player accepts, the seats nobody was invited to taken by bots."""

    class Status(models.TextChoices):
        PENDING = "pending", _("waiting for an answer")
        STARTED = "started", _("accepted: the game started")
        DECLINED = "declined", _("declined")
        WITHDRAWN = "withdrawn", _("withdrawn")

    sender = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent"
    )
    game = models.CharField(_("game"), max_length=32)
    num_seats = models.PositiveSmallIntegerField(_("players"))
    seconds_per_move = models.PositiveIntegerField(_("time per move"))
    rated = models.BooleanField(_("rated"), default=True)
    options = models.JSONField(default=dict, blank=True)
    bot_level = models.CharField(_("bots in the open seats"), max_length=16, blank=True)
    status = models.CharField(
        _("status"), max_length=12, choices=Status.choices, default=Status.PENDING
    )
    created_at = models.DateTimeField(_("sent"), auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    table = models.ForeignKey(
        Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        indexes = [
            # A sender's challenges of the last day (the daily limit) and their open ones.
            models.Index(fields=["sender", "-created_at"], name="challenge_sender_latest"),
        ]

    def __str__(self) -> str:
        return f"{self.sender} {self.game} #{self.pk} ({self.status})"

    @property
    def game_name(self) -> str:
        from games.rules import get_rules

        return get_rules(self.game).name

    @property
    def time_per_move(self) -> str:
        from games.time_controls import time_per_move_label

        return time_per_move_label(self.seconds_per_move)

    @property
    def is_expired(self) -> bool:
        return self.status == self.Status.PENDING and self.expires_at <= timezone.now()


class ChallengeInvite(models.Model):
    """One invited player's answer to a challenge."""

    class Answer(models.TextChoices):
        WAITING = "waiting", _("not answered yet")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")

    class Reason(models.TextChoices):
        """Why a challenge is declined [lichess's reasons, fewer]."""

        GENERIC = "generic", _("I am not taking challenges now")
        LATER = "later", _("Not now: ask me later")
        TOO_FAST = "too_fast", _("The time per move is too short for me")
        TOO_SLOW = "too_slow", _("The time per move is too long for me")
        GAME = "game", _("I would rather play another game")
        RATED = "rated", _("I would rather play a rated game")
        FRIENDLY = "friendly", _("I would rather play a friendly game")

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="invites")
    receiver = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenge_invites"
    )
    position = models.PositiveSmallIntegerField()  # the seat they take: 1, 2, ... in order
    answer = models.CharField(max_length=10, choices=Answer.choices, default=Answer.WAITING)
    reason = models.CharField(max_length=10, choices=Reason.choices, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["challenge", "receiver"], name="invite_once")
        ]
        indexes = [models.Index(fields=["receiver", "answer"], name="invite_receiver_answer")]

    def __str__(self) -> str:
        return f"{self.receiver} to challenge {self.challenge_id}: {self.answer}"


class Notification(models.Model):
    """One thing a player is told: in the bell (``shown``), by e-mail (``mail_due_at``, then
    ``emailed_at``) and by push. A kind's switches (``accounts.notify``) decide which, when it is
    made; a "your turn" is one unread row per table, moved on at each turn."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(_("kind"), max_length=24, choices=NoteKind.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("from"),
    )
    table = models.ForeignKey(Table, on_delete=models.CASCADE, null=True, blank=True)
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, null=True, blank=True)
    # A declined challenge's reason, the chat line that names the player (its first words), or
    # the tournament's name.
    detail = models.CharField(max_length=120, blank=True)
    # Whom it is about when not the one who caused it (a tournament's winner, who is told too).
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("about"),
    )
    # Where it leads when no table, challenge or player says (a site path: a tournament's page,
    # from an app above this one), and the few facts its text shows, rendered in the reader's
    # language when read: a round's number, the tables it waits at (``tables``), a game's latest
    # start (``due_by``).
    link = models.CharField(max_length=200, blank=True)
    data = models.JSONField(default=dict, blank=True)
    shown = models.BooleanField(default=True)
    created_at = models.DateTimeField(_("when"), default=timezone.now)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    mail_due_at = models.DateTimeField(null=True, blank=True)
    emailed_at = models.DateTimeField(null=True, blank=True)
    push_due_at = models.DateTimeField(null=True, blank=True)
    pushed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        indexes = [
            # The bell's page: a player's latest; and what is unread at a table.
            models.Index(fields=["user", "-id"], name="note_latest"),
            models.Index(
                fields=["user", "table"],
                name="note_unread",
                condition=models.Q(read_at__isnull=True),
            ),
            # The e-mail sweep: what falls due, unread and not sent.
            models.Index(
                fields=["mail_due_at"],
                name="note_mail_due",
                condition=models.Q(
                    mail_due_at__isnull=False, emailed_at__isnull=True, read_at__isnull=True
                ),
            ),
            # The push sweep: what falls due, unread and not pushed.
            models.Index(
                fields=["push_due_at"],
                name="note_push_due",
                condition=models.Q(
                    push_due_at__isnull=False, pushed_at__isnull=True, read_at__isnull=True
                ),
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "table"],
                condition=models.Q(kind="turn", read_at__isnull=True),
                name="note_one_unread_turn_per_table",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} for {self.user_id}"

    @property
    def reason_label(self) -> str:
        """A declined challenge's reason, in the reader's language."""
        return str(dict(ChallengeInvite.Reason.choices).get(self.detail, ""))

    @property
    def tables(self) -> list[int]:
        """The tables it names (a tournament's round: each game waiting for the player)."""
        found = (self.data or {}).get("tables")
        return [int(t) for t in found if isinstance(t, int)] if isinstance(found, list) else []

    @property
    def game_name(self) -> str:
        """The name of the game it is about (``data["game"]``), in the reader's language."""
        from games.rules import get_rules

        game = (self.data or {}).get("game")
        try:
            return str(get_rules(game).name) if isinstance(game, str) else ""
        except KeyError:
            return ""

    @property
    def due_by(self) -> dt.datetime | None:
        """The time it names (``data["by"]``: a game's latest start), aware."""
        text = (self.data or {}).get("by")
        try:
            return dt.datetime.fromisoformat(text) if isinstance(text, str) else None
        except ValueError:
            return None


class PushSubscription(models.Model):
    """A browser that allowed push for a player: its push service's endpoint and the keys that
    encrypt for it (RFC 8291). A browser belongs to the last player who subscribed it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    endpoint = models.URLField(max_length=1000, unique=True)
    p256dh = models.CharField(max_length=100)
    auth = models.CharField(max_length=40)
    created_at = models.DateTimeField(_("since"), auto_now_add=True)

    class Meta:
        verbose_name = _("push subscription")
        verbose_name_plural = _("push subscriptions")

    def __str__(self) -> str:
        return f"push for {self.user_id}"


class ModerationAction(models.Model):
    """What a moderator did, to whom, and why: every action is kept."""

    class Kind(models.TextChoices):
        HIDE_LINE = "hide_line", _("hid a chat line")
        MUTE_15M = "mute_15m", _("muted for 15 minutes")
        MUTE_DAY = "mute_day", _("muted for a day")
        MUTE_FOREVER = "mute_forever", _("muted for good")
        UNMUTE = "unmute", _("lifted a mute")
        DISABLE = "disable", _("disabled the account")
        DISMISS = "dismiss", _("dismissed a report")

    moderator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("moderator"),
    )
    kind = models.CharField(_("action"), max_length=16, choices=Kind.choices)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("player"),
    )
    line = models.ForeignKey(
        ChatLine, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reason = models.CharField(_("why"), max_length=500)
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        verbose_name = _("moderator action")
        verbose_name_plural = _("moderator actions")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.moderator} {self.kind} {self.player}"
