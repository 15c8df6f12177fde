"""Where a signed-in device is, for the sessions page (``accounts.sessions``)."""

from __future__ import annotations

from django import template

from accounts import sessions

register = template.Library()


@register.filter
def browser(user_agent: str) -> str:
    return sessions.browser_of(user_agent)


@register.filter
def place(address: str) -> str:
    return sessions.place_of(address)
