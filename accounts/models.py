"""The site's user: Django's user plus what a player sets on their profile."""

from __future__ import annotations

import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

TIME_ZONE_CHOICES = [(name, name) for name in sorted(zoneinfo.available_timezones())]


class User(AbstractUser):
    display_name = models.CharField(
        _("display name"),
        max_length=40,
        blank=True,
        help_text=_("The name other players see. Your username is used when empty."),
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, choices=TIME_ZONE_CHOICES, default="UTC"
    )

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    def __str__(self) -> str:
        return self.public_name
