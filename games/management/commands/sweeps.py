"""What the sweeps will do next and what they did: `manage.py sweeps [--run]`."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils import timezone

from accounts.models import Vacation
from games.jobs import sweeps
from games.models import Reminder, Seat

SHOW = 10


class Command(BaseCommand):
    help = "Shows the next deadlines, reminders and vacation ends, and the last reminders sent."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--run", action="store_true", help="run every sweep once first")

    def handle(self, *args, **options) -> None:
        now = timezone.now()
        if options["run"]:
            self.stdout.write(
                f"ran: {sweeps.sweep_vacations(now)} vacations ended, "
                f"{sweeps.sweep_deadlines(now)} timeouts played, "
                f"{sweeps.sweep_reminders(now)} reminder e-mails sent"
            )
        waiting = Seat.objects.filter(is_waiting=True).select_related("table", "user")
        self._section(
            "Next deadlines",
            waiting.filter(deadline__isnull=False).order_by("deadline"),
            lambda s: (
                f"{s.deadline:%Y-%m-%d %H:%M} UTC  {s.table}  seat {s.position} ({s.player_name})"
            ),
        )
        self._section(
            "Next turn reminders",
            waiting.filter(reminder_due_at__isnull=False).order_by("reminder_due_at"),
            lambda s: f"{s.reminder_due_at:%Y-%m-%d %H:%M} UTC  {s.user}  {s.table}",
        )
        self._section(
            "Next warnings",
            waiting.filter(warn_at__isnull=False).order_by("warn_at"),
            lambda s: f"{s.warn_at:%Y-%m-%d %H:%M} UTC  {s.user}  {s.table}",
        )
        self._section(
            "Vacations ending",
            Vacation.objects.filter(ended_at__isnull=True).order_by("ends_at"),
            lambda v: f"{v.ends_at:%Y-%m-%d %H:%M} UTC  {v.user}",
        )
        self._section(
            "Unsent reminders",
            Reminder.objects.filter(sent_at__isnull=True).select_related("user", "seat__table"),
            lambda r: f"{r.created_at:%Y-%m-%d %H:%M} UTC  {r.kind}  {r.user}  {r.seat.table}",
        )
        self._section(
            "Last reminders sent",
            Reminder.objects.filter(sent_at__isnull=False)
            .order_by("-sent_at")
            .select_related("user", "seat__table"),
            lambda r: (
                f"{r.sent_at:%Y-%m-%d %H:%M} UTC  {r.kind}  {r.user}  {r.seat.table} turn {r.turn}"
            ),
        )

    def _section(self, title: str, rows, line) -> None:
        rows = list(rows[:SHOW])
        self.stdout.write(self.style.MIGRATE_HEADING(f"{title} ({len(rows)} shown)"))
        for row in rows:
            self.stdout.write(f"  {line(row)}")
        if not rows:
            self.stdout.write("  none")
