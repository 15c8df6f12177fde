"""Display settings: the theme (light, dark, or as the system says), and the contrast, paper
grain and colour temperature of the table.

The three levels are whole numbers from 0 to 100; all four are kept on the profile of a
signed-in player and in a cookie for visitors. Pages write them as data attributes on <html>
(no style attribute: the CSP forbids them): static/css/display.css turns the levels into CSS
custom properties, and site.css those into a filter, a grain and a tint, and data-theme into
the page's colour scheme: no extra request per setting, no query.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.http import HttpRequest
from django.utils.html import format_html_join
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

COOKIE_NAME = "display"
FIELDS = ("contrast", "grain", "warmth")
DEFAULTS = {"contrast": 50, "grain": 25, "warmth": 50}
LOWEST, HIGHEST = 0, 100
# site.css: "system" follows the browser's prefers-color-scheme, the others win over it.
THEME_CHOICES = [("light", _("light")), ("dark", _("dark")), ("system", _("as the system"))]
THEMES = tuple(theme for theme, _label in THEME_CHOICES)
DEFAULT_THEME = "system"


STEP = 5  # the sliders' step (templates/accounts/display_menu.html)
CSS_PATH = Path(__file__).resolve().parents[1] / "static" / "css" / "display.css"


def _in_range(value: int) -> bool:
    return LOWEST <= value <= HIGHEST


def _to_step(value: int) -> int:
    return min(HIGHEST, (value + STEP // 2) // STEP * STEP)


def css_values(name: str, level: int) -> str:
    """A level's CSS value: --contrast is a contrast() factor, 0.75 to 1.25 (1 in the middle);
    --grain the grain's opacity, 0 to 1; --warmth 0 (cool) to 1 (warm), 0.5 untinted."""
    value = 0.75 + level / 200 if name == "contrast" else level / 100
    return f"{value:g}"


def levels_css() -> str:
    """static/css/display.css: one rule per setting and level (a test keeps the file equal
    to this; ``python -m accounts.display`` writes it)."""
    lines = [
        "/* Made by accounts/display.py (python -m accounts.display): each display level",
        "   <html> carries, as the CSS custom property site.css reads. */",
    ]
    for name in FIELDS:
        for level in range(LOWEST, HIGHEST + 1, STEP):
            lines.append(f'html[data-{name}="{level}"] {{ --{name}: {css_values(name, level)}; }}')
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class DisplaySettings:
    contrast: int = DEFAULTS["contrast"]
    grain: int = DEFAULTS["grain"]
    warmth: int = DEFAULTS["warmth"]
    theme: str = DEFAULT_THEME

    @classmethod
    def of_user(cls, user: Any) -> DisplaySettings:
        theme = user.display_theme if user.display_theme in THEMES else DEFAULT_THEME
        return cls(user.display_contrast, user.display_grain, user.display_warmth, theme)

    @classmethod
    def of_viewer(cls, request: HttpRequest) -> DisplaySettings:
        """A signed-in player's settings from the user already loaded, else the cookie's."""
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            return cls.of_user(user)
        return cls.from_cookie(request.COOKIES.get(COOKIE_NAME))

    @classmethod
    def from_cookie(cls, value: str | None) -> DisplaySettings:
        """The cookie's "contrast-grain-warmth-theme"; a cookie from before the theme, with the
        three levels only, keeps them (and the default theme); the defaults for anything else."""
        parts = (value or "").split("-")
        theme = parts.pop() if len(parts) == len(FIELDS) + 1 else DEFAULT_THEME
        # isascii: "²".isdigit() is true, but int("²") fails.
        digits = all(part.isascii() and part.isdigit() and len(part) <= 3 for part in parts)
        if len(parts) != len(FIELDS) or not digits or theme not in THEMES:
            return cls()
        contrast, grain, warmth = (int(part) for part in parts)
        if not all(_in_range(n) for n in (contrast, grain, warmth)):
            return cls()
        return cls(contrast, grain, warmth, theme)

    @property
    def theme_choices(self) -> list[tuple[str, Any, bool]]:
        """(theme, its name, chosen) for the display menu's radio buttons."""
        return [(theme, label, theme == self.theme) for theme, label in THEME_CHOICES]

    def to_cookie(self) -> str:
        return f"{self.contrast}-{self.grain}-{self.warmth}-{self.theme}"

    @property
    def levels(self) -> dict[str, int]:
        """Each setting rounded to the sliders' step: the level <html> carries."""
        return {name: _to_step(getattr(self, name)) for name in FIELDS}

    @property
    def attributes(self) -> SafeString:
        """``data-theme="system" data-contrast="50" data-grain="25" data-warmth="50"`` for
        <html>: the page's CSP allows no style attribute, so static/css/display.css maps each
        level to the CSS custom properties site.css reads (a stylesheet made by
        :func:`levels_css`), and site.css maps the theme to a colour scheme."""
        return format_html_join(" ", 'data-{}="{}"', [("theme", self.theme), *self.levels.items()])

    def save_to(self, user: Any) -> None:
        user.display_contrast, user.display_grain, user.display_warmth = (
            self.contrast,
            self.grain,
            self.warmth,
        )
        user.display_theme = self.theme
        user.save(
            update_fields=["display_contrast", "display_grain", "display_warmth", "display_theme"]
        )


if __name__ == "__main__":
    CSS_PATH.write_text(levels_css(), encoding="utf-8")
