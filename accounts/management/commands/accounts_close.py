"""Closes accounts for good, as their players' own "Close my account" does
(``accounts.closing``): ``manage.py accounts_close ID [ID ...]``. For an operator: a player who
asks by e-mail, or the accounts closed since a dump brought back by a restore (docs/deploy.md,
"Backups and a restore")."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.closing import account_close
from accounts.models import User


class Command(BaseCommand):
    help = "Closes these accounts (by user id) for good: no name, address or sign-in is left."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="+", type=int, metavar="ID", help="a user id")

    def handle(self, *args: Any, **options: Any) -> None:
        ids: list[int] = options["ids"]
        users = {user.pk: user for user in User.objects.filter(pk__in=ids)}
        missing = sorted(set(ids) - set(users))
        if missing:
            raise CommandError(f"No such user: {', '.join(map(str, missing))}. Nothing closed.")
        for user_id in ids:
            already = users[user_id].closed_at is not None
            account_close(user=users[user_id])
            self.stdout.write(f"{user_id}: {'was closed already' if already else 'closed'}")
