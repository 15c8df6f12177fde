"""High Card, registered for one test: its rules, templates, stylesheet, catalogue and bots.

Everything the game brings lives in this folder. Its record is one line (``HIGH_CARD``,
as a real game's is in games/catalog.py); the fixture registers it with one call, and Django
finds its folders where settings say (``game_folders``: the template and static folders, the
locale path). Nothing of the platform is patched, and after each test the game is gone, so
every other test sees the four real games.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from games.catalog import Game, registered
from games.rules import Rules
from tests.fifth_game import bots
from tests.fifth_game.high_card import HighCard
from tests.games.game_contract import game_folders

HERE = Path(__file__).resolve().parent

HIGH_CARD = Game(HighCard(), bots.BOTS)


@pytest.fixture(scope="session")
def high_card_locale(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The game's own message catalogues, compiled (.mo files are not committed)."""
    root = tmp_path_factory.mktemp("high-card-locale")
    for po in (HERE / "locale").glob("*/LC_MESSAGES/django.po"):
        mo = root / po.relative_to(HERE / "locale").with_suffix(".mo")
        mo.parent.mkdir(parents=True)
        subprocess.run(["msgfmt", "--output-file", str(mo), str(po)], check=True)
    return root


@pytest.fixture
def high_card(high_card_locale: Path) -> Iterator[Rules]:
    """High Card is a game of the site for the length of one test."""
    folders = game_folders(
        templates=HERE / "templates", static=HERE / "static", locale=high_card_locale
    )
    with folders, registered(HIGH_CARD) as game:
        yield game.rules
