"""Display settings: contrast, paper grain and colour temperature of the table.

Each is a whole number from 0 to 100, kept on the profile of a signed-in player and in
a cookie for visitors. Pages write them as CSS custom properties on <html>, so they cost
neither a request nor a query; site.css turns them into a filter, a grain and a tint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COOKIE_NAME = "display"
FIELDS = ("contrast", "grain", "warmth")
DEFAULTS = {"contrast": 50, "grain": 25, "warmth": 50}
LOWEST, HIGHEST = 0, 100


def _in_range(value: int) -> bool:
    return LOWEST <= value <= HIGHEST


@dataclass(frozen=True)
class DisplaySettings:
    contrast: int = DEFAULTS["contrast"]
    grain: int = DEFAULTS["grain"]
    warmth: int = DEFAULTS["warmth"]

    @classmethod
    def of_user(cls, user: Any) -> DisplaySettings:
        return cls(user.display_contrast, user.display_grain, user.display_warmth)

    @classmethod
    def from_cookie(cls, value: str | None) -> DisplaySettings:
        """The cookie's "contrast-grain-warmth"; the defaults for anything else."""
        parts = (value or "").split("-")
        # isascii: "²".isdigit() is true, but int("²") fails.
        digits = all(part.isascii() and part.isdigit() and len(part) <= 3 for part in parts)
        if len(parts) != len(FIELDS) or not digits:
            return cls()
        numbers = [int(part) for part in parts]
        return cls(*numbers) if all(_in_range(n) for n in numbers) else cls()

    def to_cookie(self) -> str:
        return f"{self.contrast}-{self.grain}-{self.warmth}"

    @property
    def style(self) -> str:
        """The CSS custom properties site.css reads (the same mapping as static/js/display.js).

        --contrast is a contrast() factor, 0.75 to 1.25 (1 in the middle); --grain the
        grain's opacity, 0 to 1; --warmth 0 (cool) to 1 (warm), 0.5 untinted.
        """
        contrast, grain, warmth = 0.75 + self.contrast / 200, self.grain / 100, self.warmth / 100
        return f"--contrast: {contrast:g}; --grain: {grain:g}; --warmth: {warmth:g}"

    def save_to(self, user: Any) -> None:
        user.display_contrast, user.display_grain, user.display_warmth = (
            self.contrast,
            self.grain,
            self.warmth,
        )
        user.save(update_fields=["display_contrast", "display_grain", "display_warmth"])
