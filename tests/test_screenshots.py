"""docs/screenshots/ is current in its list: every playable game has its picture at each size,
in each state, and the README names every one (``make screenshots`` makes them both; this does
not render anything)."""

from __future__ import annotations

from tests.e2e.axe import SIZES as BROWSER_SIZES
from tests.support.screenshots import DIRECTORY, SIZES, expected_files, readme


def test_every_game_and_size_has_its_screenshot():
    missing = [name for name in expected_files() if not (DIRECTORY / name).is_file()]
    assert not missing, f"run `make screenshots`: {missing} missing in docs/screenshots/"


def test_no_screenshot_is_left_over():
    extra = sorted({p.name for p in DIRECTORY.glob("*.jpg")} - set(expected_files()))
    assert not extra, f"run `make screenshots`: {extra} in docs/screenshots/ are not made any more"


def test_the_readme_lists_every_screenshot():
    text = (DIRECTORY / "README.md").read_text()
    assert text == readme(), "run `make screenshots`: docs/screenshots/README.md is not current"
    assert all(f"({name})" in text for name in expected_files())


def test_the_pictures_are_small():
    total = sum((DIRECTORY / name).stat().st_size for name in expected_files())
    assert total < 1_500_000, f"docs/screenshots/ holds {total} bytes"


def test_the_sizes_are_the_browser_tests_sizes():
    assert {w: v["height"] for w, v in BROWSER_SIZES.items()} == SIZES
