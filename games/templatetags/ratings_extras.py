"""Template helpers for ratings, replays and fair shuffles; no game named."""

from __future__ import annotations

from django import template

from games.selectors.fairness import seed_commitment

register = template.Library()


@register.filter
def seed_sha256(seed: int | None) -> str:
    return "" if seed is None else seed_commitment(seed)


@register.filter
def rating(value: float | None) -> str:
    """A rating as shown: one decimal (the conservative ordinal, mu - 3 sigma)."""
    return "" if value is None else f"{value:.1f}"


@register.filter
def signed(value: float | None) -> str:
    """A rating change: +1.2, ±0.0, or 0.8 after a true minus sign (U+2212)."""
    if value is None:
        return ""
    shown = f"{abs(value):.1f}"
    if shown == "0.0":
        return "±0.0"
    return f"+{shown}" if value > 0 else f"\u2212{shown}"
