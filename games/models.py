"""Tables, seats and the append-only move log.

The rules never live here: a table stores its game's state as the JSON its
rules module gives, and ``seed`` + ``Move`` rows replay it exactly.
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


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
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="created_tables"
    )
    invite_code = models.CharField(max_length=32, unique=True, default=new_invite_code)
    # The game itself: secret seed, current state, and a counter every change bumps.
    seed = models.BigIntegerField(null=True, blank=True)
    state = models.JSONField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0)
    deadline = models.DateTimeField(null=True, blank=True)
    outcome = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "-created_at"], name="table_status_created"),
            models.Index(fields=["deadline"], name="table_deadline"),
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


class Seat(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="seats",
    )
    bot_level = models.CharField(max_length=16, blank=True)
    # Denormalised from the state after every move, so the lobby, clocks and
    # reminders find the seats the game waits for without reading any state.
    is_waiting = models.BooleanField(default=False)
    waiting_since = models.DateTimeField(null=True, blank=True)
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    timeouts = models.PositiveSmallIntegerField(default=0)
    joined_at = models.DateTimeField(auto_now_add=True)

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
            models.Index(fields=["user", "is_waiting"], name="seat_user_waiting"),
        ]

    def __str__(self) -> str:
        return f"{self.table} seat {self.position}"

    @property
    def player_name(self) -> str:
        if self.user_id is not None:
            return self.user.public_name
        if self.bot_level:
            return _("Bot (%(level)s)") % {"level": self.bot_level}
        return _("empty seat")


class Move(models.Model):
    class By(models.TextChoices):
        PLAYER = "player", _("player")
        BOT = "bot", _("bot")
        TIMEOUT = "timeout", _("timeout")

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves")
    seq = models.PositiveIntegerField()
    position = models.PositiveSmallIntegerField()
    action = models.JSONField()
    by = models.CharField(max_length=16, choices=By.choices, default=By.PLAYER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["seq"]
        constraints = [
            models.UniqueConstraint(fields=["table", "seq"], name="move_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.table} move {self.seq}"
