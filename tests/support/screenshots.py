"""What docs/screenshots/ holds: one JPEG per game, state and size, and the README listing them.
Shared by the module that makes them (tests/e2e/screenshots.py, ``make screenshots``) and the
default run's check that they are all there (tests/test_screenshots.py)."""

from __future__ import annotations

from pathlib import Path

from games.catalog import playable_games

DIRECTORY = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

#: The sizes (width: height) of tests/e2e/axe.py's SIZES, here without Playwright.
SIZES = {390: 844, 768: 1024, 1280: 800}
STATES = {
    "turn": "the signed-in player's turn",
    "end": "the game is over",
}


def file_name(game: str, state: str, width: int) -> str:
    return f"{game}-{state}-{width}.jpg"


def expected_files() -> list[str]:
    return [
        file_name(rules.slug, state, width)
        for rules in playable_games()
        for state in STATES
        for width in SIZES
    ]


def readme() -> str:
    """docs/screenshots/README.md: the command, then a table per game."""
    lines = [
        "# Screenshots",
        "",
        "Every game's table as alice, the signed-in player, sees it on arrival (the viewport,",
        "not the whole page; JPEG of quality 55; light theme): when it is her turn, and when",
        "the game is over, at a phone's, a tablet's and a laptop's size. The tables are made",
        "through the services with seeded random deals and moves (the same every run) in a",
        "throwaway test database.",
        "",
        "Made by `make screenshots` (tests/e2e/screenshots.py; Debian's Chromium, `CHROMIUM_PATH`,",
        "default /usr/bin/chromium). Run it after a change to a table's look and commit the",
        "pictures; tests/test_screenshots.py checks that every game and size has its file here.",
        "",
    ]
    for rules in playable_games():
        lines += [f"## {rules.name}", ""]
        lines += ["| | " + " | ".join(f"{w}x{h}" for w, h in SIZES.items()) + " |"]
        lines += ["|---" * (len(SIZES) + 1) + "|"]
        for state, description in STATES.items():
            cells = [
                f"[{file_name(rules.slug, state, width)}]({file_name(rules.slug, state, width)})"
                for width in SIZES
            ]
            lines += [f"| {description} | " + " | ".join(cells) + " |"]
        lines += [""]
    return "\n".join(lines)
