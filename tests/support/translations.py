"""Text in a template that no one marked for translation (tests/test_templates_translated.py,
and the fifth game's templates): what is left of its text and of the attributes people read
(title, alt, aria-label, placeholder) once template tags, variables, comments, scripts, styles
and the text inside {% translate %}/{% blocktranslate %} are removed."""

from __future__ import annotations

import re

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
