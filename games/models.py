"""Tables, seats and the append-only move log.

The rules never live here: a table stores its game's state as the JSON its
rules module gives, and ``seed`` + ``Move`` rows replay it exactly.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import functions
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

LIVE_LIMIT_SECONDS = 3600
# A finished table's page keeps its websocket this long after the end, so that its players
# learn of a rematch offer ("Rematch") without a reload; later visitors read it at load.
LIVE_AFTER_END = dt.timedelta(hours=1)
# Bots are told apart at a table by a name of their own, one per seat.
BOT_NAMES = ("Ada", "Björn", "Cleo", "Dag", "Eir", "Finn")
# A table's latest change of moves or end: a bot's last move ends a game without moving
# ``last_move_at``. GREATEST passes over a NULL.
ACTIVITY = functions.Greatest("last_move_at", "finished_at")


def new_invite_code() -> str:
    return secrets.token_urlsafe(12)


class Table(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("waiting for players")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        ABORTED = "aborted", _("aborted")

    game = models.CharField(_("game"), max_length=32)
    options = models.JSONField(default=dict, blank=True)
    num_seats = models.PositiveSmallIntegerField(_("seats"))
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    seconds_per_move = models.PositiveIntegerField(_("time per move"))
    rated = models.BooleanField(
        _("rated"), default=True, help_text=_("A rated game moves the players' ratings.")
    )
    max_timeouts = models.PositiveSmallIntegerField(
        _("timeouts before a bot takes over"), default=3
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="created_tables"
    )
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    # The game itself: secret seed, current state, and a counter every change bumps.
    seed = models.BigIntegerField(null=True, blank=True)
    state = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    # How many moves the log holds: the next move's number, read from the locked row (a count,
    # or a max() in the same statement as the lock, would see the log as it was before the wait).
    moves_played = models.PositiveIntegerField(default=0)
    outcome = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # When the last move was stored (state_store): the lobby's rows show it without the log.
    last_move_at = models.DateTimeField(null=True, blank=True)
    # The rematch its players were offered after this one ended ("Rematch"): the first
    # player who asks opens it, the others join that one (services.tables.table_rematch).
    next_table = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="previous_table"
    )
    # A rematch offer: the finished table whose players it is for (their seats moved on by one);
    # it is never in the lobby, nobody else may sit at it, and it is withdrawn after
    # REMATCH_HOURS or when one of them declines (services.tables.table_rematch).
    rematch_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_offers"
    )
    # A pace its creator requires: fewer timeouts per 100 moves than this over the last 90 days,
    # or a seat is refused (games.services.tables.table_join); None: anyone may sit.
    pace_max_timeouts_per_100 = models.PositiveSmallIntegerField(
        _("fewer timeouts per 100 moves than"), null=True, blank=True
    )
    # Not a column: set on the lobby's rows of the player's own tables (selectors.tables).
    waiting_for_me: bool
    # Not a column: what the apps above note on such a row (games/extensions.py row_notes).
    row_note: str

    class Meta:
        indexes = [
            models.Index(fields=["status", "-created_at"], name="table_status_created"),
            # A player's finished games newest first (the lobby, the profile, their history):
            # found from their seats (``Seat``'s seat_user_table) and this alone, no row read.
            models.Index(
                fields=["id", "finished_at"],
                name="table_finished",
                condition=models.Q(status="finished"),
                # And a player's record from the index alone (selectors.ratings._records).
                include=["game", "num_seats"],
            ),
            # The tables that moved or finished since the pace job's last run.
            models.Index(ACTIVITY, name="table_activity"),
        ]

    def __str__(self) -> str:
        return f"{self.game} #{self.pk}"

    @property
    def game_name(self) -> str:
        from games.rules import get_rules

        return get_rules(self.game).name

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def is_running(self) -> bool:
        return self.status == self.Status.RUNNING

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def keeps_socket(self) -> bool:
        """Whether its page opens the websocket: while the game is open or runs, and for
        ``LIVE_AFTER_END`` after it finished (a rematch is told there)."""
        if self.is_open or self.is_running:
            return True
        ended = self.finished_at
        return self.is_finished and ended is not None and timezone.now() - ended < LIVE_AFTER_END

    @property
    def is_live(self) -> bool:
        """Live tables (minutes per move) keep their clocks running through vacations."""
        return self.seconds_per_move < LIVE_LIMIT_SECONDS


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
        db_index=False,  # seat_user_table below leads with it
    )
    bot_level = models.CharField(max_length=16, blank=True)
    # Denormalised from the state after every move, so the lobby, clocks and
    # reminders find the seats the game waits for without reading any state.
    is_waiting = models.BooleanField(default=False)
    waiting_since = models.DateTimeField(null=True, blank=True)
    # Counts the turns this seat has been waited for: a reminder is sent once per turn.
    turn = models.PositiveIntegerField(default=0)
    # The seat's own clock: None while paused (a vacation), with the time it had left.
    deadline = models.DateTimeField(null=True, blank=True)
    paused_remaining = models.DurationField(null=True, blank=True)
    # When the sweeps are due for this seat; cleared once done, so they select by index.
    reminder_due_at = models.DateTimeField(null=True, blank=True)
    warn_at = models.DateTimeField(null=True, blank=True)
    # The player had the table open (page load, poll or websocket) at this time.
    seen_at = models.DateTimeField(null=True, blank=True)
    replaced_by_bot = models.BooleanField(default=False)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    # The table's end, set with the place when its game finishes: a player's finished games,
    # newest first, are a range of one index (seat_user_finished), however many they are.
    finished_at = models.DateTimeField(null=True, blank=True)
    timeouts = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)
    # Not a column: the player's pace, set on the seats a page shows (selectors.pace.seats_paced).
    pace: PlayerPace | None

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["table", "position"], name="seat_unique_position"),
            models.UniqueConstraint(
                fields=["table", "user"],
                condition=models.Q(user__isnull=False),
                name="seat_unique_user",
            ),
        ]
        indexes = [
            # A player's seats with their tables, from the index alone: years of games joined
            # to their tables without reading a seat (selectors: the lobby, the profile).
            # With the seat's place and id: a player's record from it alone (selectors.ratings).
            models.Index(fields=["user", "table"], name="seat_user_table", include=["rank", "id"]),
            # A game's first places: whether one was shared, from the index alone (the record).
            models.Index(fields=["table", "id"], name="seat_first", condition=models.Q(rank=0)),
            # A player's seats at tables still open or running: no place yet (rank is set when
            # the game ends), among years of finished ones (selectors.tables.UNFINISHED).
            models.Index(
                fields=["user"], name="seat_unfinished", condition=models.Q(rank__isnull=True)
            ),
            # A player's finished games, newest first: the lobby's latest, a history's page and
            # its count, from the index alone (selectors.tables, selectors.ratings).
            models.Index(
                fields=["user", "-finished_at", "-table"],
                name="seat_user_finished",
                condition=models.Q(finished_at__isnull=False),
            ),
            models.Index(fields=["user", "is_waiting"], name="seat_user_waiting"),
            # A player's seats a bot took for good: their games abandoned (services.pace).
            models.Index(
                fields=["user"], name="seat_replaced", condition=models.Q(replaced_by_bot=True)
            ),
            models.Index(
                fields=["deadline"], name="seat_deadline_due", condition=models.Q(is_waiting=True)
            ),
            models.Index(
                fields=["reminder_due_at"],
                name="seat_reminder_due",
                condition=models.Q(reminder_due_at__isnull=False),
            ),
            models.Index(
                fields=["warn_at"], name="seat_warn_due", condition=models.Q(warn_at__isnull=False)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.position}"

    @property
    def is_bot(self) -> bool:
        """A bot plays this seat: it was seated as one, or took over after too many timeouts."""
        return bool(self.bot_level) or self.replaced_by_bot

    @property
    def player_name(self) -> StrOrPromise:
        """The seat's name; "empty seat" stays lazy, translated where it is shown."""
        user = self.user
        if user is not None:
            if self.replaced_by_bot and not user.is_bot:  # a bot account's name says so
                return _("%(name)s (bot)") % {"name": user.public_name}
            return user.public_name
        if self.bot_level:
            name = BOT_NAMES[self.position % len(BOT_NAMES)]
            return _("%(name)s (bot)") % {"name": name}
        return _("empty seat")


class Move(models.Model):
    class By(models.TextChoices):
        PLAYER = "player", _("player")
        BOT = "bot", _("bot")
        TIMEOUT = "timeout", _("timeout")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    # The table's version once this move was stored: tells a stale submission from a fresh one.
    version = models.PositiveIntegerField(default=0)
    position = models.PositiveSmallIntegerField()
    action = models.JSONField()
    by = models.CharField(max_length=16, choices=By.choices, default=By.PLAYER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="move_unique_seq"),
        ]
        indexes = [
            # A person's moves and timeouts by when they were made: the pace job's new ones
            # each minute (services.pace), without reading the logs of the tables that moved.
            models.Index(
                fields=["created_at"],
                name="move_counted_at",
                condition=models.Q(by__in=["player", "timeout"]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} move {self.seq}"


class PlayerRecord(models.Model):
    """A player's finished games of one game: against other seats (``solo`` False), or alone
    against the game at one ``level`` (the JSON of ``Outcome.details["solo"]["level"]``). Each
    game is counted as it ends, in its last move's transaction (``services.records``), so that a
    profile reads a few rows however many games its player finished."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="records",
        db_index=False,  # record_unique leads with it
    )
    game = models.CharField(max_length=32)
    solo = models.BooleanField(default=False)
    level = models.CharField(max_length=64, blank=True)  # "" against other seats
    wins = models.PositiveIntegerField(default=0)  # alone in first place
    draws = models.PositiveIntegerField(default=0)  # first place, shared
    losses = models.PositiveIntegerField(default=0)  # any other place

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game", "solo", "level"], name="record_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.game}: {self.wins}/{self.draws}/{self.losses}"


class PlayerPace(models.Model):
    """How promptly a player takes their turns, over the last 90 days: one row per player who
    played then, written by the periodic job of ``services.pace`` (every minute, the rows that
    changed) so that no page computes it on load (a badge may be a minute stale).

    ``moves`` counts the turns the player was due: their own moves and their timeouts.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pace"
    )
    # None: no move of their own in the window (only timeouts, or only abandoned seats).
    median_seconds = models.PositiveIntegerField(_("median time to move"), null=True, blank=True)
    # 0..1 of ``moves``: made within the player's reminder delay (a timeout never is).
    within_delay_share = models.FloatField(null=True, blank=True)
    timeouts_per_100 = models.FloatField(_("timeouts per 100 moves"), default=0)
    abandoned = models.PositiveIntegerField(_("games abandoned"), default=0)
    moves = models.PositiveIntegerField(_("moves"), default=0)
    computed_at = models.DateTimeField()
    # When the oldest move or game it counts leaves the window (or the player's reminder delay
    # changed): the job writes the row again then. None: nothing in it ages out.
    stale_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["stale_at"], name="pace_stale"),
        ]

    def __str__(self) -> str:
        return f"{self.user} pace over {self.moves} moves"


class PaceMove(models.Model):
    """A turn the pace counts (``services.pace``): a person's own move or timeout at a table
    where another person sat, with how long the player kept the table waiting. Written by the
    pace job from the stored moves, once each (its move is its key), and dropped once it left
    the window: a run then reads a player's counted turns, not the tables' logs.

    ``waited`` is None for a timeout (it is never within a reminder delay).
    """

    # No constraint in the database (derived rows: checking two keys a row was a fifth of the
    # job's insert); Django still deletes a move's or a player's rows with them.
    move = models.OneToOneField(
        Move, on_delete=models.CASCADE, primary_key=True, related_name="+", db_constraint=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_constraint=False
    )
    at = models.DateTimeField()  # the move's ``created_at``
    waited = models.FloatField(null=True, blank=True)  # seconds since the table's move before

    class Meta:
        indexes = [
            # A player's counted turns in the window, from the index alone; and those that left
            # it, when their row goes stale.
            models.Index(fields=["user", "at"], name="pacemove_user", include=["waited"]),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} move {self.move_id}"


class PaceRun(models.Model):
    """Where the pace job's last run counted to (one row): the next adds what was stored
    since. No row: the next run counts the 90 days afresh."""

    counted_to = models.DateTimeField()

    def __str__(self) -> str:
        return f"pace counted to {self.counted_to}"


class Reminder(models.Model):
    """One e-mail notice for one seat's turn: the unique row makes every sweep idempotent.

    ``step`` counts a turn's notices of one kind: always 0 with the "delay" cadence (one a
    turn), 0, 1, 2... with the cadences that remind again while the turn waits.
    """

    class Kind(models.TextChoices):
        TURN = "turn", _("your turn")
        WARNING = "warning", _("time nearly up")

    seat = models.ForeignKey(Seat, on_delete=models.CASCADE, related_name="reminders")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reminders"
    )
    turn = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    step = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["seat", "turn", "kind", "step"], name="reminder_once_per_step"
            ),
        ]
        indexes = [
            models.Index(
                fields=["user"], name="reminder_unsent", condition=models.Q(sent_at__isnull=True)
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} reminder for {self.seat} turn {self.turn}"


# Fewer rated games than this and a player is listed apart on the leaderboard, as provisional:
# each list has an index of its own, in its order, that counts and pages it without reading a
# row (``Rating.Meta``; bench/years: page 500 of 100,000 players).
PROVISIONAL_GAMES = 5


class Rating(models.Model):
    """A player's skill at one game (openskill Plackett-Luce); ``ordinal`` is what is shown."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    game = models.CharField(_("game"), max_length=32)
    mu = models.FloatField()
    sigma = models.FloatField()
    # mu - 3 sigma, stored so the leaderboard orders by index.
    ordinal = models.FloatField(_("rating"))
    games_played = models.PositiveIntegerField(_("rated games"), default=0)
    last_played = models.DateTimeField(_("last played"), null=True, blank=True)
    # Not columns: set on a player's profile rows (selectors.ratings, services.places).
    game_name: str
    provisional: bool
    place: int | None

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="rating_unique_user_game"),
        ]
        indexes = [
            models.Index(
                fields=["game", "-ordinal", "-games_played", "user"],
                name="rating_established",
                condition=models.Q(games_played__gte=PROVISIONAL_GAMES),
            ),
            models.Index(
                fields=["game", "-ordinal", "-games_played", "user"],
                name="rating_provisional",
                condition=models.Q(games_played__lt=PROVISIONAL_GAMES),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.game} {self.ordinal:.1f}"


# A step of the ladder is this fraction of a point of rating: ``floor(ordinal * STEPS_A_POINT)``.
# A power of two, so that a step's bounds are exact in floating point (services.places).
STEPS_A_POINT = 4


class RatingStep(models.Model):
    """How many established ratings of a game lie in one step of the ladder, as a sum of rows:
    the database's triggers on ``games_rating`` add a row of +1 or -1 for every established
    rating that enters or leaves a step (migration 0019), and the periodic job adds them up
    (``services.places.steps_compact``). A place on the leaderboard is then one more than the
    counts of the steps above and the ratings above in its own step (``services.places``)."""

    game = models.CharField(max_length=32)
    step = models.IntegerField()
    count = models.IntegerField()

    class Meta:
        indexes = [models.Index(fields=["game", "step"], name="ratingstep_game_step")]

    def __str__(self) -> str:
        return f"{self.game} {self.step}: {self.count:+d}"


class RatingChange(models.Model):
    """What one rated game did to one player's rating: the history ratings replay from."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    game = models.CharField(max_length=32)
    # The player's place in that game (table.outcome["ranks"], forfeits included).
    rank = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    ordinal_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    ordinal_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "user"], name="rating_change_unique"),
        ]
        indexes = [models.Index(fields=["user", "created_at"], name="rating_change_user")]

    def __str__(self) -> str:
        return f"{self.user} {self.table}: {self.ordinal_before:.1f} -> {self.ordinal_after:.1f}"

    @property
    def delta(self) -> float:
        return self.ordinal_after - self.ordinal_before
