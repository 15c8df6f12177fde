"""Every string a player reads in a template is marked for translation.

A template passes when, after removing template tags, variables, comments,
scripts, styles and the text inside {% translate %}/{% blocktranslate %}, no
words remain in its text or in the attributes people read (title, alt,
aria-label, placeholder).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
# Text a player never reads as a sentence: names of games and card ranks in their own
# language, symbols, and e-mail plain-text layout.
ALLOWED = {
    "District",
    "Noir",
    "Slide",
    "Gnav",
    "Point",
    "City",
    "Narr",
    "Ugle",
    "Potte",
    "Hus",
    "Hest",
    "Katt",
    "Dragon",
    "Gjøk",
    "I",
    "II",
    "III",
    "IV",
    "V",
    "VI",
    "VII",
    "VIII",
    "IX",
    "X",
    "XI",
    "XII",
    "D",
    "T",
    "UTC",
}

BLOCKS = re.compile(
    r"{%\s*blocktranslate\b.*?{%\s*endblocktranslate\s*%}|{%\s*blocktrans\b.*?{%\s*endblocktrans\s*%}",
    re.S,
)
REMOVE = [
    re.compile(r"{#.*?#}", re.S),
    re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.S),
    re.compile(r"<script\b.*?</script>", re.S | re.I),
    re.compile(r"<style\b.*?</style>", re.S | re.I),
    re.compile(r"{%.*?%}", re.S),
    re.compile(r"{{.*?}}", re.S),
]
READ_ATTRIBUTES = re.compile(r'\b(?:title|alt|aria-label|placeholder)="([^"]*)"', re.I)
TAG = re.compile(r"<[^>]*>", re.S)
ENTITY = re.compile(r"&[a-zA-Z#0-9]+;")
WORD = re.compile(r"[^\W\d_]{1,}", re.U)


def unmarked_words(source: str) -> list[str]:
    text = BLOCKS.sub(" ", source)
    for pattern in REMOVE[:4]:
        text = pattern.sub(" ", text)
    attributes = " ".join(READ_ATTRIBUTES.findall(text))
    for pattern in REMOVE[4:]:
        attributes = pattern.sub(" ", attributes)
        text = pattern.sub(" ", text)
    visible = ENTITY.sub(" ", TAG.sub(" ", text)) + " " + attributes
    return [word for word in WORD.findall(visible) if word not in ALLOWED]


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
