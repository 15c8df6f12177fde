"""The load bench's players: bench000, bench001, ... with one password, made in the stack's
database before it starts (``python -m bench.load.players --players N``, in the stack's
environment: its settings and database; stack.py runs it). The bench's own, not the site's:
its bulk insert is no write path of the site's (tests/test_write_paths.py)."""

from __future__ import annotations

import argparse

PASSWORD = "a bench pass phrase, 7781"
PREFIX = "bench"


def player_name(index: int) -> str:
    return f"{PREFIX}{index:03d}"


def players_create(count: int) -> int:
    """Creates the first ``count`` players that do not exist yet (Django set up); how many."""
    from django.contrib.auth.hashers import make_password

    from accounts.models import REMINDERS_OFF, User

    hashed = make_password(PASSWORD)  # hashed once: the same password for every player
    existing = set(User.objects.filter(username__startswith=PREFIX).values_list("username"))
    users = [
        User(
            username=name,
            email=f"{name}@bench.invalid",
            password=hashed,
            reminder_delay=REMINDERS_OFF,
        )
        for name in (player_name(i) for i in range(count))
        if (name,) not in existing
    ]
    User.objects.bulk_create(users)
    return len(users)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Creates the load bench's players.")
    parser.add_argument("--players", type=int, required=True)
    count = parser.parse_args().players

    import django

    django.setup()
    print(f"{players_create(count)} players created")
