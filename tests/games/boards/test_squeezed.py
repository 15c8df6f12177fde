"""A board's parts are sent with every run of white space made one space (what a browser shows
of them): any white space, the ends included, as a regular expression's ``\\s+`` makes it."""

from __future__ import annotations

import random
import re

from games.boards import squeezed

SPACES = re.compile(r"\s+")
WHITE = [" ", "\t", "\n", "\r", "\f", "\v", "\u00a0", "\u2003", "\u3000", "\x1c", "\u2028"]
TEXT = ["<p>", "</p>", "a", "é", "&nbsp;", "5", "—", '<span class="card">']


def test_every_run_of_white_space_is_one_space_as_the_pattern_makes_it():
    rng = random.Random(11)
    for _ in range(3000):
        pieces = rng.choices(WHITE + TEXT, k=rng.randint(0, 12))
        html = "".join(pieces)
        assert squeezed(html) == SPACES.sub(" ", html), repr(html)


def test_the_ends_and_the_empty():
    assert squeezed("") == ""
    assert squeezed(" \n\t ") == " "
    assert squeezed("\n  <div>\n   <p>a  b</p>\n</div>\n") == " <div> <p>a b</p> </div> "
    assert squeezed("<b>x</b>") == "<b>x</b>"
