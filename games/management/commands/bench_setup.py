"""Creates the players of the load bench (``bench/load.py``): bench000, bench001, ..."""

from __future__ import annotations

from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand

from accounts.models import REMINDERS_OFF, User


class Command(BaseCommand):
    help = "Creates N players named <prefix>000... with one password, for the load bench."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--password", required=True)
        parser.add_argument("--prefix", default="bench")

    def handle(self, *args, players: int, password: str, prefix: str, **options) -> None:
        hashed = make_password(password)  # hashed once: the same password for every player
        existing = set(User.objects.filter(username__startswith=prefix).values_list("username"))
        users = [
            User(
                username=name,
                email=f"{name}@bench.invalid",
                password=hashed,
                reminder_delay=REMINDERS_OFF,
            )
            for name in (f"{prefix}{i:03d}" for i in range(players))
            if (name,) not in existing
        ]
        User.objects.bulk_create(users)
        self.stdout.write(f"{len(users)} players created")
