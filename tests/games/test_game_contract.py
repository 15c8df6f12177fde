"""Every registered game has each template, stylesheet, bot and translation the platform needs.

A part missing is named (tests/games/game_contract.py); without this test a game without its
stylesheet passes every other test and breaks its pages in production, where the manifest
storage has no entry for it. The fifth game of the tests passes the same contract
(tests/fifth_game/test_platform.py).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
from django.conf import settings

from games.bots import games as bot_specs
from games.bots.games import GameBots
from games.rules import Rules, all_rules
from games.rules.registry import registered
from tests.fifth_game.high_card import HighCard
from tests.games.game_contract import (
    OPTIONAL_TEMPLATES,
    REQUIRED_TEMPLATES,
    TRANSLATED,
    missing_parts,
    stylesheet,
)

ROOT = Path(settings.BASE_DIR)


@pytest.mark.parametrize("rules", all_rules(), ids=lambda rules: rules.slug)
def test_every_registered_game_has_all_the_platform_needs(rules: Rules):
    missing = missing_parts(rules)
    assert not missing, f"{rules.slug} lacks:\n" + "\n".join(missing)


def _per_game_templates() -> set[str]:
    """The names of the per-game templates the platform includes or looks up by slug."""
    names: set[str] = set()
    for path in [*(ROOT / "templates").rglob("*.html"), *(ROOT / "games").rglob("*.py")]:
        if "templates/games/" in path.as_posix():
            continue  # a game's own templates include their own parts
        text = path.read_text()
        names |= set(re.findall(r'"games/"\|add:[\w.]+\|add:"/(\w+)\.html"', text))
        names |= set(re.findall(r'f"games/\{[\w.]+\}/(\w+)\.html"', text))
    return names


def test_the_contract_knows_every_template_and_the_stylesheet_the_platform_uses():
    found = _per_game_templates()
    assert {"public", "private", "log_entry", "result", "rules", "about", "reveal"} <= found
    assert found <= set(REQUIRED_TEMPLATES) | set(OPTIONAL_TEMPLATES), (
        "a per-game template the contract does not check: "
        f"{sorted(found - set(REQUIRED_TEMPLATES) - set(OPTIONAL_TEMPLATES))}"
    )
    link = "{% static 'css/games/'|add:table.game|add:'.css' %}"
    assert stylesheet("x") == "css/games/x.css"
    for page in ("tables/table.html", "tables/table_log.html", "replays/page.html"):
        assert link in (ROOT / "templates" / page).read_text(), page


class HalfBaked(HighCard):
    """A game registered with only part of what the platform needs."""

    slug = "half-baked"
    name = "Half Baked"


def _failing_scorer(view, legal_actions):
    raise RuntimeError("no idea")


@pytest.fixture
def half_baked(settings, tmp_path: Path):
    """Half Baked, with the templates written into ``folder`` by the test, and nothing else."""
    folder = tmp_path / "games" / HalfBaked.slug
    folder.mkdir(parents=True)
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [*templates[0]["DIRS"], tmp_path]
    settings.TEMPLATES = templates
    with registered(HalfBaked()) as rules:
        yield rules, folder


def test_the_contract_names_each_part_an_incomplete_game_lacks(half_baked):
    rules, folder = half_baked
    (folder / "public.html").write_text("<p>{{ view.deck_size }}</p>")
    (folder / "private.html").write_text('{% load i18n %}<p>{% translate "Fold everything" %}</p>')
    (folder / "rules.html").write_text("{% if %}")
    assert missing_parts(rules) == [
        "template games/half-baked/log_entry.html",
        "template games/half-baked/result.html",
        "template games/half-baked/rules.html (it does not compile: "
        "Unexpected end of expression in if tag.)",
        "template games/half-baked/about.html",
        "stylesheet static/css/games/half-baked.css",
        "bot spec for half-baked (games/bots/games.py): every level would play at random",
        *[f"translation ({language}) of 'Fold everything'" for language in TRANSLATED],
    ]


def test_a_game_without_its_board_is_named_as_not_listed(half_baked):
    rules, folder = half_baked
    (folder / "private.html").write_text("<p></p>")
    missing = missing_parts(rules)
    assert missing[0] == "template games/half-baked/public.html"
    assert "catalogue entry: half-baked is not listed (games/catalog.py)" in missing


def test_a_bot_that_fails_is_named_with_its_level(half_baked, monkeypatch):
    rules, _folder = half_baked
    monkeypatch.setitem(bot_specs.SPECS, rules.slug, GameBots(rules.slug, _failing_scorer))
    missing = missing_parts(rules)
    assert "bot medium for half-baked: it fails (RuntimeError('no idea'))" in missing
    assert not any(line.startswith("bot spec") for line in missing)
