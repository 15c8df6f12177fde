"""Every string a player reads in a template is marked for translation.

A template passes when, after removing template tags, variables, comments,
scripts, styles and the text inside {% translate %}/{% blocktranslate %}, no
words remain in its text or in the attributes people read (title, alt,
aria-label, placeholder).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.translations import unmarked_words

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
TEMPLATE_FILES = sorted(
    p for p in TEMPLATES.rglob("*") if p.suffix in {".html", ".txt"} and p.is_file()
)


@pytest.mark.parametrize("path", TEMPLATE_FILES, ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_every_string_in_the_template_is_marked_for_translation(path: Path) -> None:
    words = unmarked_words(path.read_text(encoding="utf-8"))
    assert not words, f"unmarked text in {path.relative_to(TEMPLATES)}: {' '.join(words[:20])}"


def test_the_check_notices_unmarked_text() -> None:
    assert unmarked_words("<p>Your turn</p>") == ["Your", "turn"]
    assert unmarked_words('<span title="Hidden card"></span>') == ["Hidden", "card"]
    assert unmarked_words('<p>{% translate "Your turn" %} {{ name }}</p>') == []
    assert unmarked_words("{% blocktranslate %}Hi {{ n }}{% endblocktranslate %}") == []
