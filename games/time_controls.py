"""The times per move a table can be created with, in seconds."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR

TIME_PER_MOVE_CHOICES = [
    (2 * MINUTE, _("2 minutes (live)")),
    (5 * MINUTE, _("5 minutes (live)")),
    (10 * MINUTE, _("10 minutes (live)")),
    (12 * HOUR, _("12 hours")),
    (1 * DAY, _("1 day")),
    (2 * DAY, _("2 days")),
    (3 * DAY, _("3 days")),
    (5 * DAY, _("5 days")),
    (7 * DAY, _("7 days")),
]
DEFAULT_TIME_PER_MOVE = 1 * DAY


def time_per_move_label(seconds: int) -> str:
    """How a table, challenge or tournament's time per move reads (empty for one not offered)."""
    return str(dict(TIME_PER_MOVE_CHOICES).get(seconds, ""))
