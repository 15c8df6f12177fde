"""The site's user: Django's user plus what a player sets on their profile."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.core.validators import MaxValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.display import DEFAULT_THEME as DISPLAY_DEFAULT_THEME
from accounts.display import DEFAULTS as DISPLAY_DEFAULTS
from accounts.display import HIGHEST as DISPLAY_HIGHEST
from accounts.display import THEME_CHOICES
from accounts.notify import NoteChannel, NoteKind, switch_on

TIME_ZONE_CHOICES = [(name, name) for name in sorted(zoneinfo.available_timezones())]

REMINDERS_OFF = -1
REMINDER_DELAY_CHOICES = [
    (REMINDERS_OFF, _("never: no e-mail reminders")),
    (0, _("immediately")),
    (60, _("after 1 hour")),
    (240, _("after 4 hours")),
    (720, _("after 12 hours")),
]


class ReminderCadence(models.TextChoices):
    """How often the "your turn" e-mail comes (``games.services.clocks.reminder_due_next``)."""

    DELAY = "delay", _("once, after the delay above, and a warning before the deadline")
    DAILY = "daily", _("a daily digest at the hour below")
    EVERY = "every", _("every few hours (below) while a turn waits")
    ESCALATING = "escalating", _("at half the time, at four fifths and an hour before the deadline")


REMINDER_HOUR_CHOICES = [(hour, f"{hour:02d}:00") for hour in range(24)]
REMINDER_EVERY_CHOICES = [
    (hours, ngettext_lazy("every hour", "every %(num)d hours", "num") % {"num": hours})
    for hours in (1, 2, 3, 4, 6, 8, 12, 24)
]

# "Confirm my moves": a click on a move chooses it and a second step (Play) plays it, so that a
# stray click or tap is not a move. "auto" asks the device: on for a touch screen.
CONFIRM_MOVES_CHOICES = [
    ("auto", _("on a touch screen, off with a mouse")),
    ("on", _("always: choose, then Play")),
    ("off", _("never: a click plays at once")),
]


class ChallengesFrom(models.TextChoices):
    """Who may challenge a player [lichess]."""

    EVERYONE = "everyone", _("everyone")
    RATED_NEAR = "rated_near", _("players rated near me")
    FRIENDS = "friends", _("friends only")
    NOBODY = "nobody", _("nobody")


class EmailStop(models.TextChoices):
    """Why the site stopped sending e-mail to an address."""

    BOUNCE = "bounce", _("the address bounced")
    COMPLAINT = "complaint", _("marked as spam")


# "Players rated near me": within this many rating points of mine at the challenge's game.
RATING_RANGE_CHOICES = [(5, "± 5"), (10, "± 10"), (20, "± 20")]


class User(AbstractUser):
    display_name = models.CharField(
        _("display name"),
        max_length=40,
        blank=True,
        help_text=_("The name other players see. Your username is used when empty."),
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, choices=TIME_ZONE_CHOICES, default="UTC"
    )

    reminder_delay = models.IntegerField(
        _("e-mail me when it is my turn"),
        choices=REMINDER_DELAY_CHOICES,
        default=60,
        help_text=_("One e-mail lists every table waiting for you."),
    )
    # How often (``ReminderCadence``), and the daily digest's hour or the hours between two
    # e-mails; "never" above turns every cadence off.
    reminder_cadence = models.CharField(
        _("how often"),
        max_length=12,
        choices=ReminderCadence.choices,
        default=ReminderCadence.DELAY,
        help_text=_("Never more often than you choose, never in your quiet hours."),
    )
    reminder_hour = models.PositiveSmallIntegerField(
        _("daily digest at"), choices=REMINDER_HOUR_CHOICES, default=9
    )
    reminder_every_hours = models.PositiveSmallIntegerField(
        _("how many hours apart"), choices=REMINDER_EVERY_CHOICES, default=4
    )
    quiet_hours_start = models.TimeField(
        _("quiet hours from"), null=True, blank=True, help_text=_("No e-mail between these times.")
    )
    quiet_hours_end = models.TimeField(_("quiet hours until"), null=True, blank=True)
    language = models.CharField(
        _("language"),
        max_length=8,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("The site and your e-mails speak it. Empty: your browser's language."),
    )
    # Display settings: three levels, 0 to 100 each, and the theme (see accounts/display.py).
    display_contrast = models.PositiveSmallIntegerField(
        _("contrast"),
        default=DISPLAY_DEFAULTS["contrast"],
        validators=[MaxValueValidator(DISPLAY_HIGHEST)],
    )
    display_grain = models.PositiveSmallIntegerField(
        _("paper grain"),
        default=DISPLAY_DEFAULTS["grain"],
        validators=[MaxValueValidator(DISPLAY_HIGHEST)],
    )
    display_warmth = models.PositiveSmallIntegerField(
        _("colour temperature"),
        default=DISPLAY_DEFAULTS["warmth"],
        validators=[MaxValueValidator(DISPLAY_HIGHEST)],
    )
    display_theme = models.CharField(
        _("theme"), max_length=8, choices=THEME_CHOICES, default=DISPLAY_DEFAULT_THEME
    )
    confirm_moves = models.CharField(
        _("confirm my moves"),
        max_length=4,
        choices=CONFIRM_MOVES_CHOICES,
        default="auto",
        help_text=_("A first click on a move chooses it; Play plays it."),
    )

    challenges_from = models.CharField(
        _("who may challenge me"),
        max_length=12,
        choices=ChallengesFrom.choices,
        default=ChallengesFrom.EVERYONE,
    )
    challenge_rating_range = models.PositiveSmallIntegerField(
        _("rated within"),
        choices=RATING_RANGE_CHOICES,
        default=10,
        help_text=_('With "players rated near me": how far from my rating at that game.'),
    )

    # Each kind of notification on each channel, where the player changed the default
    # (``accounts.notify``), and how many of the bell's are unread: kept by community's
    # services in the transaction that adds or reads one, so that every page's header shows
    # the count without a query.
    note_switches = models.JSONField(_("notifications"), default=dict, blank=True)
    notes_unread = models.PositiveIntegerField(default=0)
    # A moderator's mute (community.services.moderation): no chat line until then, and why.
    muted_until = models.DateTimeField(_("muted until"), null=True, blank=True)
    mute_reason = models.CharField(_("why muted"), max_length=200, blank=True)
    # Set when the player closed their account (accounts.closing): the row stays so that the
    # games they played keep their seats, but nothing of theirs is shown or signs in again.
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    # The secret address of the player's calendar feed (accounts/calendar.py): only its SHA-256
    # is kept, so the database never holds an address that works; None: no feed.
    calendar_key = models.CharField(
        max_length=64, null=True, blank=True, unique=True, editable=False
    )
    # A program plays this account through the API (api/): its name says so everywhere, and it
    # stays a bot for good. A person's games against bot accounts are rated only if they opt in.
    is_bot = models.BooleanField(_("bot account"), default=False, editable=False)
    rated_against_bots = models.BooleanField(
        _("rate my games against bot accounts"),
        default=False,
        help_text=_("Programs that play through the API; the site's own bots are never rated."),
    )
    # Set when mail to ``email`` bounced or was reported as spam (accounts.mail_stops): no
    # reminder or notification e-mail goes to it until the player sets a confirmed address.
    email_stopped_at = models.DateTimeField(_("e-mail stopped"), null=True, blank=True)
    email_stopped_why = models.CharField(
        _("why e-mail stopped"), max_length=16, choices=EmailStop.choices, blank=True
    )

    class Meta(AbstractUser.Meta):
        indexes = [
            # The few accounts a moderator disabled: lists of many players (a leaderboard)
            # leave them out by id, without joining every player's row.
            models.Index(fields=["id"], name="user_inactive", condition=models.Q(is_active=False)),
        ]

    @property
    def public_name(self) -> str:
        if self.closed_at is not None:
            return str(_("a former player"))  # in the language of the page or e-mail
        name = self.display_name or self.username
        if self.is_bot:
            return str(_("%(name)s (bot)") % {"name": name})
        return name

    @property
    def is_closed(self) -> bool:
        return self.closed_at is not None

    def __str__(self) -> str:
        return self.public_name

    @property
    def wants_reminders(self) -> bool:
        """The "your turn" e-mail: a delay chosen, and the turn's e-mail switch on."""
        return self.reminder_delay != REMINDERS_OFF and self.notified(
            NoteKind.TURN, NoteChannel.EMAIL
        )

    def muted_at(self, now: dt.datetime) -> bool:
        return self.muted_until is not None and self.muted_until > now

    def notified(self, kind: str, channel: str) -> bool:
        """Whether this player wants notifications of ``kind`` on ``channel``."""
        return switch_on(self.note_switches or {}, kind, channel)

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone or "UTC")

    def quiet_until(self, now: dt.datetime) -> dt.datetime | None:
        """The end of the quiet hours ``now`` falls in (as an aware datetime), or None."""
        start, end = self.quiet_hours_start, self.quiet_hours_end
        if start is None or end is None or start == end:
            return None
        local = now.astimezone(self.zone)
        t = local.time()
        inside = start <= t < end if start < end else (t >= start or t < end)
        if not inside:
            return None
        end_day = local.date() if t < end else local.date() + dt.timedelta(days=1)
        return dt.datetime.combine(end_day, end, tzinfo=self.zone)


class Vacation(models.Model):
    """A break: while it lasts, the clocks of the player's turn-based games stand still."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="vacations")
    starts_at = models.DateTimeField(default=timezone.now)
    ends_at = models.DateTimeField()
    # Set when the clocks were started again (at ends_at, or earlier if cut short).
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["ended_at", "ends_at"], name="vacation_open_end")]

    def __str__(self) -> str:
        return f"{self.user} {self.starts_at:%Y-%m-%d} to {self.ends_at:%Y-%m-%d}"


class Follow(models.Model):
    """One player following another [lichess: at most ``FOLLOW_CAP``]; two follows, one each
    way, make two friends."""

    follower = models.ForeignKey(User, on_delete=models.CASCADE, related_name="following_rows")
    followed = models.ForeignKey(User, on_delete=models.CASCADE, related_name="follower_rows")
    created_at = models.DateTimeField(_("since"), auto_now_add=True)

    class Meta:
        verbose_name = _("follow")
        verbose_name_plural = _("follows")
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(
                condition=~models.Q(follower=models.F("followed")), name="follow_not_self"
            ),
        ]
        indexes = [models.Index(fields=["followed", "follower"], name="follow_followed")]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"


class Block(models.Model):
    """One player blocking another, with three switches [OGS]; each is on by default.

    ``hide_lines``: the blocked player's chat lines are hidden from the blocker everywhere.
    ``no_games``: neither is seated with the other (a join, a rematch, later a tournament), and
    neither sees the other's open tables. ``no_contact``: no challenge or notification from the
    blocked player reaches the blocker.
    """

    blocker = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocks_made")
    blocked = models.ForeignKey(User, on_delete=models.CASCADE, related_name="blocks_received")
    hide_lines = models.BooleanField(_("hide their chat lines from me"), default=True)
    no_games = models.BooleanField(_("no games with them"), default=True)
    no_contact = models.BooleanField(_("no challenges or notifications from them"), default=True)
    created_at = models.DateTimeField(_("since"), auto_now_add=True)

    class Meta:
        verbose_name = _("block")
        verbose_name_plural = _("blocks")
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="block_not_self"
            ),
        ]
        indexes = [models.Index(fields=["blocked", "blocker"], name="block_blocked")]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"
