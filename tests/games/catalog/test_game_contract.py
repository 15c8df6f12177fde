"""Every registered game has each template, stylesheet, bot and translation the platform needs.

The product names what a game lacks when Django starts (games/checks.py); here the check is
clean for the four games, it names each part an incomplete game lacks, and every sentence of
every game is translated (tests/games/game_contract.py). Without it a game without its
stylesheet passes every other test and breaks its pages in production, where the manifest
storage has no entry for it. The fifth game of the tests passes the same
(tests/fifth_game/test_platform.py).

The platform reads a game's parts from its record in the catalog, never by building their
names: the last tests fail on a template or a module that builds one again.
"""

from __future__ import annotations

import random
import re
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest
from django.conf import settings

from games.bots.games import GameBots
from games.catalog import Game, Templates, all_games, playable_games, registered
from games.rules.base import Action
from tests.fifth_game import bots as high_card_bots
from tests.fifth_game.high_card import HighCard
from tests.games.game_contract import (
    TRANSLATED,
    check_messages,
    game_folders,
    missing_translations,
)

ROOT = Path(settings.BASE_DIR)


def test_the_start_up_check_finds_every_game_complete():
    assert check_messages() == []


def test_the_deploy_check_finds_every_bot_playing_a_legal_move():
    assert check_messages(deploy=True) == []


@pytest.mark.parametrize("game", all_games(), ids=lambda game: game.slug)
def test_every_sentence_of_every_game_is_translated(game: Game):
    missing = missing_translations(game)
    assert not missing, f"{game.slug} lacks:\n" + "\n".join(missing)


class HalfBaked(HighCard):
    """A game registered with only part of what the platform needs."""

    slug = "half-baked"
    name = "Half Baked"


def _failing_scorer(view, legal_actions):
    raise RuntimeError("no idea")


def _unbuildable() -> _OffTheBoard:
    raise RuntimeError("no medium bot")


class _OffTheBoard:
    """A medium bot that answers with a move no game offers."""

    def choose(self, view, legal_actions, rng: random.Random) -> Action:
        return {"type": "fold"}


@pytest.fixture
def half_baked(tmp_path: Path):
    """Registers Half Baked (with the bots the test gives) and an empty template folder."""
    folder = tmp_path / "games" / HalfBaked.slug
    folder.mkdir(parents=True)

    def register(bots: GameBots | None = None):
        return registered(Game(HalfBaked(), bots))

    with game_folders(templates=tmp_path):
        yield register, folder


def test_the_check_names_each_part_an_incomplete_game_lacks(half_baked):
    register, folder = half_baked
    (folder / "public.html").write_text("<p>{{ view.deck_size }}</p>")
    (folder / "private.html").write_text('{% load i18n %}<p>{% translate "Fold everything" %}</p>')
    (folder / "rules.html").write_text("{% if %}")
    with register() as game:
        assert check_messages() == [
            "half-baked: (games.E001) template games/half-baked/log_entry.html is missing",
            "half-baked: (games.E001) template games/half-baked/result.html is missing",
            "half-baked: (games.E002) template games/half-baked/rules.html does not compile: "
            "Unexpected end of expression in if tag.",
            "half-baked: (games.E001) template games/half-baked/about.html is missing",
            "half-baked: (games.E003) stylesheet static/css/games/half-baked.css is missing",
            "half-baked: (games.E004) no bots: every level would play at random",
        ]
        assert game.rules in playable_games(), "its board is there: it is listed"
        assert missing_translations(game) == [
            f"translation ({language}) of 'Fold everything'" for language in TRANSLATED
        ]


def test_a_game_without_its_board_is_named_and_not_listed(half_baked):
    register, folder = half_baked
    (folder / "private.html").write_text("<p></p>")
    with register() as game:
        assert check_messages()[0] == (
            "half-baked: (games.E001) template games/half-baked/public.html is missing"
        )
        assert game.rules not in playable_games()


def test_a_bot_that_fails_or_cheats_is_named_with_its_level(half_baked):
    register, _folder = half_baked
    with register(GameBots(_failing_scorer, playouts=2)):
        assert not any("bot" in line for line in check_messages())
        failing = [line for line in check_messages(deploy=True) if "bot" in line]
        # (The easy bot may blunder into a random move before it asks its heuristic.)
        assert "half-baked: (games.E005) bot medium fails (RuntimeError('no idea'))" in failing
        assert not any("bot hard" in line for line in failing), "its search needs no heuristic"
    with register(GameBots(high_card_bots.scores, playouts=2, medium=_unbuildable)):
        assert [line for line in check_messages() if "bot" in line] == [
            "half-baked: (games.E005) bot medium fails (RuntimeError('no medium bot'))",
        ], "a bot that cannot even be built is named at every start"
    with register(GameBots(high_card_bots.scores, playouts=2, medium=_OffTheBoard)):
        assert [line for line in check_messages(deploy=True) if "bot" in line] == [
            "half-baked: (games.E006) bot medium chose {'type': 'fold'}, "
            "not a legal move of a new game",
        ]


# -- the platform reads the record ----------------------------------------------------------

# A game's path built from its slug: "games/"|add:table.game, 'css/games/'|add:..., or an
# f-string such as f"games/{slug}/..." or f"js/games/{slug}.js".
BUILT_IN_TEMPLATE = re.compile(r"""["'](?:games|css/games|js/games)/["']\s*\|\s*add:""")
BUILT_IN_PYTHON = re.compile(r"""f["'](?:games|css/games|js/games)/\{""")


def _platform_files(pattern: str) -> list[Path]:
    """The platform's own files: a game's folder may name its own parts."""
    return [
        path
        for folder in ("templates", "games")
        for path in (ROOT / folder).rglob(pattern)
        if "templates/games/" not in path.as_posix()
    ]


def test_no_template_builds_the_name_of_a_games_part():
    built = [
        path.relative_to(ROOT).as_posix()
        for path in _platform_files("*.html")
        if BUILT_IN_TEMPLATE.search(path.read_text())
    ]
    assert built == [], "read it from the game's record (games/catalog.py: Game)"


def test_only_the_catalog_builds_the_names_of_a_games_parts():
    built = [
        path.relative_to(ROOT).as_posix()
        for path in _platform_files("*.py")
        if BUILT_IN_PYTHON.search(path.read_text())
    ]
    assert built == ["games/catalog.py"]


def test_every_part_a_template_includes_is_one_the_record_has_and_the_check_checks():
    used = set()
    for path in _platform_files("*.html"):
        used |= set(re.findall(r"\bgame\.templates\.(\w+)", path.read_text()))
    parts = {part.name for part in fields(Templates)} - {"folder"}
    assert {"result", "rules", "about"} <= used <= parts
    assert set(Templates.in_folder("x").required()) | {"reveal"} == parts


def test_the_contract_that_keeps_each_games_rules_alone_lists_no_game_and_covers_each():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    alone = next(c for c in contracts if c["name"] == "each game's rules stand alone")
    assert alone["modules"] == ["games.rules.*"]
    for game in all_games():
        package = type(game.rules).__module__.split(".")
        assert package[:2] == ["games", "rules"] and len(package) > 3, (
            f"{game.slug}: its rules are a package of games/rules/, which the contract covers"
        )
