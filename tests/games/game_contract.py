"""What the tests check of every registered game beyond the product's own system check.

The product names at start-up what a game of its catalog lacks (games/checks.py: templates,
stylesheet, bots). What stays a test is translation: every sentence of a game's templates and
every label of its options translated in every language's message catalogue. (At start-up, a
sentence just written would stop ``runserver``, and the deploy check runs before
``compilemessages``.)

The game's *name* is not checked in the catalogues: names of games are proper names, shown
as they are in every language (tests/test_templates_translated.py allows them).

``game_folders`` is where Django finds the files of a game that lives outside the tree (the
tests' own games): its templates, static files and message catalogues, as settings say.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.checks import run_checks
from django.template import engines
from django.test import override_settings
from django.utils.translation import override, trans_real
from django.utils.translation.template import templatize

from games.catalog import Game

TRANSLATED = [code for code, _name in settings.LANGUAGES if code != settings.LANGUAGE_CODE]


def game_folders(
    *, templates: Path, static: Path | None = None, locale: Path | None = None
) -> override_settings:
    """Django's settings with these folders added to where it finds templates, static files
    and message catalogues."""
    engines_settings = copy.deepcopy(settings.TEMPLATES)
    engines_settings[0]["DIRS"] = [*engines_settings[0]["DIRS"], templates]
    return override_settings(
        TEMPLATES=engines_settings,
        STATICFILES_DIRS=[*settings.STATICFILES_DIRS, *([static] if static else [])],
        LOCALE_PATHS=[*settings.LOCALE_PATHS, *([locale] if locale else [])],
    )


def check_messages(*, deploy: bool = False) -> list[str]:
    """What Django's system checks of the games say, each as ``slug: (id) message``."""
    found = run_checks(tags=["games"], include_deployment_checks=deploy)
    return [f"{message.obj}: ({message.id}) {message.msg}" for message in found]


def template_files(game: Game) -> list[Path]:
    """Every file of the game's template folder, wherever the template engine finds it."""
    engine = engines["django"].engine
    folders = [Path(d) / game.templates.folder for d in engine.dirs]
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


def game_messages(game: Game) -> set[str | tuple[str, int]]:
    """What a player of ``game`` reads that the game itself says: its templates' sentences
    and its options' labels."""
    rules = game.rules
    keys: set[str | tuple[str, int]] = set()
    for path in template_files(game):
        keys |= template_messages(path.read_text())
    keys |= set(rules.option_labels.values())
    keys |= {label for choices in rules.option_choices.values() for _value, label in choices}
    return keys


def _catalogue(language: str) -> Any:
    with override(language):
        return trans_real.translation(language)._catalog


def missing_translations(game: Game) -> list[str]:
    """Each sentence of ``game`` that a language's catalogue lacks, named; empty if none."""
    missing = []
    keys = sorted(game_messages(game), key=str)
    for language in TRANSLATED:
        catalogue = _catalogue(language)
        for key in keys:
            if not catalogue.get(key):
                msgid = key[0] if isinstance(key, tuple) else key
                missing.append(f"translation ({language}) of {msgid.split(chr(4))[-1]!r}")
    return missing
