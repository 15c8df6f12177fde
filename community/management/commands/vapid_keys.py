"""Makes a VAPID key pair for browser push and prints the settings that take it."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from community.services.push import vapid_pair


class Command(BaseCommand):
    help = "Prints a new VAPID key pair for browser push, as the environment variables to set."

    def handle(self, *args: Any, **options: Any) -> None:
        private, public = vapid_pair()
        self.stdout.write(f"WEBPUSH_VAPID_PRIVATE_KEY={private}")
        self.stdout.write(f"WEBPUSH_VAPID_PUBLIC_KEY={public}")
