"""The vacation panel's figures for a page outside ``games`` (the profile page).

A template tag, so that ``accounts`` shows a player's vacation without importing ``games``.
"""

from __future__ import annotations

from typing import Any

from django import template

from games.selectors.vacations import vacation_context

register = template.Library()


@register.simple_tag
def vacation_status(user: Any) -> dict[str, Any]:
    """``vacation`` (running, or None), ``vacation_left`` (text), ``vacation_can_start``."""
    return vacation_context(user)
