"""Tournaments: what one is (its game, format, time per move, sign-up and entry rules), who
entered it, and its rounds with the tables each round seated (``docs/architecture.md``,
"Tournaments"). The pairings are pure functions (``tournaments.pairing``); the services store
what they decide."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from games.models import Table


class Format(models.TextChoices):
    ROUND_ROBIN = "round_robin", _("round robin")
    SWISS = "swiss", _("Swiss")
    SWISS_WINDOWS = "swiss_windows", _("Swiss with round windows")
    MULTIPLAYER = "multiplayer", _("multiplayer rounds")
    KNOCKOUT = "knockout", _("single elimination")
    LEAGUE = "league", _("league")


# The formats of two players a table: the others seat a table of the tournament's table size.
TWO_PLAYER_FORMATS = frozenset({Format.SWISS, Format.SWISS_WINDOWS, Format.KNOCKOUT})
# Best of: the games a knockout match may have.
MATCH_GAMES = (1, 3, 5)


class Tournament(models.Model):
    class Status(models.TextChoices):
        SIGNUP = "signup", _("open for sign-up")
        RUNNING = "running", _("running")
        FINISHED = "finished", _("finished")
        CANCELLED = "cancelled", pgettext_lazy("tournament", "cancelled")

    name = models.CharField(_("name"), max_length=80)
    game = models.CharField(_("game"), max_length=32)
    options = models.JSONField(default=dict, blank=True)
    format = models.CharField(_("format"), max_length=16, choices=Format.choices)
    # Players at each table: 2 for the two-player formats.
    table_size = models.PositiveSmallIntegerField(_("players a table"), default=2)
    seconds_per_move = models.PositiveIntegerField(_("time per move"))
    rated = models.BooleanField(_("rated"), default=True)
    signup_opens_at = models.DateTimeField(_("sign-up opens"))
    # Sign-up closes when it starts.
    starts_at = models.DateTimeField(_("starts"))
    # None: "until done" (a round robin's whole schedule, a knockout to its final).
    rounds = models.PositiveSmallIntegerField(_("rounds"), null=True, blank=True)
    min_players = models.PositiveSmallIntegerField(_("fewest players"))
    max_players = models.PositiveSmallIntegerField(_("most players"))
    # Entry rules: a rating at the game, finished games of it, no vacation while it runs [OGS].
    min_rating = models.FloatField(_("lowest rating"), null=True, blank=True)
    min_finished_games = models.PositiveIntegerField(_("fewest finished games"), default=0)
    no_vacations = models.BooleanField(_("no vacations during it"), default=False)
    # A pace: fewer than this many timeouts per 100 moves over the last 90 days (games' stored
    # ``PlayerPace``); None: any pace.
    pace_max_timeouts_per_100 = models.PositiveSmallIntegerField(
        _("fewer timeouts per 100 moves than"), null=True, blank=True
    )
    # A knockout match: best of 1, 3 or 5.
    match_games = models.PositiveSmallIntegerField(_("games a match"), default=1)
    # A Swiss with round windows: how long a round lasts, and by when in it each game starts at
    # the latest when its players are not all ready.
    round_window = models.DurationField(_("round window"), null=True, blank=True)
    start_within = models.DurationField(_("games start within"), null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.SIGNUP)
    # Bumped by every change the standings page shows (a game's end, a round's opening): the
    # page's poll compares it and re-renders only when it moved.
    version = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournaments_created"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="tournaments_won",
    )

    class Meta:
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")
        indexes = [
            models.Index(fields=["status", "starts_at"], name="tournament_status_start"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(min_players__lte=models.F("max_players")),
                name="tournament_players_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def game_name(self) -> str:
        from games.rules import get_rules

        return get_rules(self.game).name

    @property
    def time_per_move(self) -> str:
        from games.time_controls import time_per_move_label

        return time_per_move_label(self.seconds_per_move)

    @property
    def is_signup(self) -> bool:
        return self.status == self.Status.SIGNUP


class Entry(models.Model):
    """One player in a tournament, with what the standings order by (kept by the services when
    a game of it ends, so that the page orders by index)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_entries"
    )
    joined_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    # A round robin's group (0, 1, ...) and the entry's place in it; in a league, the group
    # within its division (1 the highest; 0: waits for the next season).
    group = models.PositiveSmallIntegerField(default=0)
    division = models.PositiveSmallIntegerField(default=0)
    seed = models.PositiveSmallIntegerField(default=0)
    # The place in the standings (equal places shared), kept with the points.
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.FloatField(default=0)
    tiebreak = models.FloatField(default=0)
    second_tiebreak = models.FloatField(default=0)
    byes = models.PositiveSmallIntegerField(default=0)
    firsts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="entry_once"),
        ]
        indexes = [
            models.Index(fields=["user", "tournament"], name="entry_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.tournament_id}"


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveSmallIntegerField()
    # A league's season (1, 2, ...); 1 for every other format.
    season = models.PositiveSmallIntegerField(default=1)
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tournament", "season", "number"], name="round_once"),
        ]
        indexes = [
            # The sweep: open rounds whose window has passed.
            models.Index(
                fields=["closes_at"],
                name="round_close_due",
                condition=models.Q(closed_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} round {self.number}"


class Pairing(models.Model):
    """One table of a round (a knockout match's game ``game_number``), or a bye."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="pairings")
    group = models.PositiveSmallIntegerField(default=0)
    game_number = models.PositiveSmallIntegerField(default=1)
    # A Swiss with round windows: the game starts when both are ready, or at this time at the
    # latest; every other format starts it when the round opens.
    starts_by = models.DateTimeField(null=True, blank=True)
    # Its result is stored in the seats' places (a bye: at once).
    done = models.BooleanField(default=False)
    table = models.OneToOneField(
        Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="tournament_pairing"
    )
    is_bye = models.BooleanField(default=False)

    class Meta:
        indexes = [
            # The sweep: window games whose latest start has come.
            models.Index(
                fields=["starts_by"],
                name="pairing_start_due",
                condition=models.Q(table__isnull=True, done=False, is_bye=False),
            ),
            # The sweep: games not yet counted (their end's event may have been lost).
            models.Index(fields=["table"], name="pairing_pending", condition=models.Q(done=False)),
        ]

    def __str__(self) -> str:
        return f"round {self.round_id} pairing {self.pk}"


class PairingSeat(models.Model):
    """An entry at a pairing's table, at a seat; its place and points once the game ended."""

    pairing = models.ForeignKey(Pairing, on_delete=models.CASCADE, related_name="seats")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="pairing_seats")
    position = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.FloatField(null=True, blank=True)
    # A Swiss with round windows: when this player said they are ready to start.
    ready_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["pairing", "position"], name="pairing_seat_once"),
        ]

    def __str__(self) -> str:
        return f"pairing {self.pairing_id} seat {self.position}"
