"""What the platform needs of every registered game, and the names of what a game lacks.

A game is its rules in the registry (games/rules/registry.py) plus what the platform
includes or links by the game's slug, never by a name written in its code:

- the board's two parts, ``games/<slug>/public.html`` and ``private.html`` (games/catalog.py:
  without them the game is not listed), its log lines ``log_entry.html`` (boards, the log
  page, the replay), its ``result.html`` (the table's result and the replay's last step), its
  ``rules.html`` (the game page and the table's rules panel) and its ``about.html`` (the game
  page); ``reveal.html`` is optional (the replay shows each hidden seat's board without it);
- its stylesheet ``static/css/games/<slug>.css``, linked by the table, game, log and replay
  pages: under the manifest storage of production a missing one is an error at run time;
- a bot at every level (games/bots/games.py), each choosing a legal move of a new game;
- every sentence of its templates and every label of its options translated in every
  language's message catalogue.

The game's *name* is not checked in the catalogues: names of games are proper names, shown
as they are in every language (tests/test_templates_translated.py allows them).
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.staticfiles import finders
from django.template import TemplateDoesNotExist, TemplateSyntaxError, engines
from django.template.loader import get_template
from django.utils.translation import override, trans_real
from django.utils.translation.template import templatize

from games.bots import games as bot_specs
from games.bots.base import BOT_LEVELS, get_bot
from games.catalog import playable_games
from games.rules import Rules

REQUIRED_TEMPLATES = ("public", "private", "log_entry", "result", "rules", "about")
OPTIONAL_TEMPLATES = ("reveal",)
TRANSLATED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


def stylesheet(slug: str) -> str:
    """The stylesheet the table page links (templates/tables/table.html)."""
    return f"css/games/{slug}.css"


def missing_parts(rules: Rules) -> list[str]:
    """Everything the platform needs of ``rules`` that it lacks, each named; empty if none."""
    slug = rules.slug
    missing = [*_missing_templates(slug)]
    if not any(game is rules for game in playable_games()):
        missing.append(f"catalogue entry: {slug} is not listed (games/catalog.py)")
    if finders.find(stylesheet(slug)) is None:
        missing.append(f"stylesheet static/{stylesheet(slug)}")
    missing += _missing_bots(rules)
    missing += _missing_translations(rules)
    return missing


def _missing_templates(slug: str) -> list[str]:
    missing = []
    for name in REQUIRED_TEMPLATES:
        path = f"games/{slug}/{name}.html"
        try:
            get_template(path)
        except TemplateDoesNotExist:
            missing.append(f"template {path}")
        except TemplateSyntaxError as exc:
            missing.append(f"template {path} (it does not compile: {exc})")
    return missing


def _missing_bots(rules: Rules) -> list[str]:
    if rules.slug not in bot_specs.SPECS:
        return [
            f"bot spec for {rules.slug} (games/bots/games.py): every level would play at random"
        ]
    state = rules.setup(rules.min_players, seed=1)
    seat = rules.active_seats(state)[0]
    view = rules.view(state, seat)
    missing = []
    for level in BOT_LEVELS:
        try:
            action = get_bot(level, rules.slug).choose(
                view, list(view["legal_actions"]), random.Random(1)
            )
        except Exception as exc:  # the contract names the failure, whatever it is
            missing.append(f"bot {level} for {rules.slug}: it fails ({exc!r})")
            continue
        if action not in view["legal_actions"]:
            missing.append(f"bot {level} for {rules.slug}: it chose {action!r}, not a legal move")
    return missing


def template_files(slug: str) -> list[Path]:
    """Every file of the game's template folder, wherever the template engine finds it."""
    engine = engines["django"].engine
    folders = [Path(d) / "games" / slug for d in engine.dirs]
    return sorted(path for folder in folders if folder.is_dir() for path in folder.glob("*.html"))


_STRING = r"""u?('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
_CALL = re.compile(rf"\b(n?p?gettext|_)\(\s*{_STRING}(?:\s*,\s*{_STRING})?(?:\s*,\s*{_STRING})?")


def template_messages(source: str) -> set[str | tuple[str, int]]:
    """The catalogue keys of the messages a template marks for translation, as
    ``makemessages`` reads them: ``msgid``, ``(msgid, 0)`` for a plural, context first."""
    from ast import literal_eval

    keys: set[str | tuple[str, int]] = set()
    for function, *strings in _CALL.findall(templatize(source)):
        values = [literal_eval(s) for s in strings if s]
        if function.startswith("np"):
            keys.add((f"{values[0]}\x04{values[1]}", 0))
        elif function.startswith("n"):
            keys.add((values[0], 0))
        elif function.startswith("p"):
            keys.add(f"{values[0]}\x04{values[1]}")
        else:
            keys.add(values[0])
    return keys


def game_messages(rules: Rules) -> set[str | tuple[str, int]]:
    """What a player of ``rules`` reads that the game itself says: its templates' sentences
    and its options' labels."""
    keys: set[str | tuple[str, int]] = set()
    for path in template_files(rules.slug):
        keys |= template_messages(path.read_text())
    keys |= set(rules.option_labels.values())
    keys |= {label for choices in rules.option_choices.values() for _value, label in choices}
    return keys


def _catalogue(language: str) -> Any:
    with override(language):
        return trans_real.translation(language)._catalog


def _missing_translations(rules: Rules) -> list[str]:
    missing = []
    keys = sorted(game_messages(rules), key=str)
    for language in TRANSLATED:
        catalogue = _catalogue(language)
        for key in keys:
            if not catalogue.get(key):
                msgid = key[0] if isinstance(key, tuple) else key
                missing.append(f"translation ({language}) of {msgid.split(chr(4))[-1]!r}")
    return missing
