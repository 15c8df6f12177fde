"""Stops reminder and notification e-mail to addresses that bounced or were reported as spam:
``manage.py email_stopped ADDRESS [ADDRESS ...] --why bounce|complaint``, or ``-`` to read the
addresses from standard input, one a line (docs/deploy.md, "Bounces and complaints")."""

from __future__ import annotations

import sys
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_email

from accounts.mail_stops import mail_stops
from accounts.models import EmailStop


class Command(BaseCommand):
    help = (
        "Stops reminder and notification e-mail to these addresses (a bounce or a complaint "
        "reported by the mail provider); '-' reads addresses from standard input, one a line. "
        "A player's next confirmed address starts their e-mail again."
    )
    # ``call_command(..., stdin=...)``: where ``-`` reads from (a test's text).
    stealth_options = ("stdin",)

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addresses", nargs="*", metavar="ADDRESS", help="an address, or -")
        parser.add_argument(
            "--why",
            required=True,
            choices=EmailStop.values,
            help="bounce (the address does not take mail) or complaint (reported as spam)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        addresses = self._addresses(options["addresses"], options.get("stdin") or sys.stdin)
        if not addresses:
            raise CommandError("No address given: name one or more, or '-' to read standard input.")
        bad = [address for address in addresses if not _valid(address)]
        if bad:
            raise CommandError(f"Not an e-mail address, nothing changed: {', '.join(bad[:10])}")
        stopped = mail_stops(addresses=addresses, why=EmailStop(options["why"]))
        for address, count in stopped.items():
            if count:
                self.stdout.write(f"{address}: e-mail stopped for {count} player(s)")
            else:
                self.stdout.write(f"{address}: no player to stop (none has it, or already stopped)")
        total = sum(stopped.values())
        self.stdout.write(self.style.SUCCESS(f"{total} player(s) get no more e-mail."))

    def _addresses(self, given: list[str], stdin: Any) -> list[str]:
        """The addresses named and read, each once in the order given (blank lines and lines
        starting with # skipped)."""
        found: list[str] = []
        for item in given:
            if item == "-":
                lines = (line.strip() for line in stdin)
                found += [line for line in lines if line and not line.startswith("#")]
            else:
                found.append(item.strip())
        return list(dict.fromkeys(address for address in found if address))


def _valid(address: str) -> bool:
    try:
        validate_email(address)
    except ValidationError:
        return False
    return True
