"""High Card, registered for one test: its rules, templates, stylesheet, catalogue and bots.

Everything the game brings lives in this folder; the platform learns of it only through its
generic hooks (the registry, the template and static folders, the locale paths, the bots'
specs), and forgets it again after each test, so every other test sees the four real games.
"""

from __future__ import annotations

import copy
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from games.bots import games as bot_specs
from games.bots.base import HARD_BUDGET
from games.bots.games import GameBots
from games.rules.registry import registered
from tests.fifth_game import bots
from tests.fifth_game.high_card import HighCard

HERE = Path(__file__).resolve().parent
HARD_PLAYOUTS = 40


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
def high_card(settings, monkeypatch, high_card_locale: Path) -> Iterator[HighCard]:
    """High Card is a game of the site for the length of one test."""
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [*templates[0]["DIRS"], HERE / "templates"]
    settings.TEMPLATES = templates
    settings.STATICFILES_DIRS = [*settings.STATICFILES_DIRS, HERE / "static"]
    settings.LOCALE_PATHS = [*settings.LOCALE_PATHS, high_card_locale]
    monkeypatch.setitem(bot_specs.SPECS, HighCard.slug, GameBots(HighCard.slug, bots.scores))
    monkeypatch.setitem(HARD_BUDGET.iterations, HighCard.slug, HARD_PLAYOUTS)
    monkeypatch.setattr(HARD_BUDGET, "seconds", None)
    with registered(HighCard()) as rules:
        yield rules
