"""The end-of-game ranking names every place in one style, in every language."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from games.rules import all_rules

LANGUAGES = [code for code, _name in settings.LANGUAGES]
# The ranking names places as words ("first place" ... "sixth place"): as many as seats.
PLACES = 6


def ranking_lines(language: str) -> list[str]:
    """The ranking of a six-player game, one place each, as a reader sees its lines."""
    ranking = [
        {"seat": SimpleNamespace(player_name=f"Player{rank}"), "rank": rank, "score": 10 + rank}
        for rank in range(PLACES)
    ]
    context = {
        "table": SimpleNamespace(num_seats=PLACES, game="slide"),
        "ranking": ranking,
        "view": {"outcome": {"details": {}}},
        "names": [],
    }
    with translation.override(language):
        html = render_to_string("tables/partials/result.html", context)
    items = re.findall(r"<li[^>]*>(.*?)</li>", html.split('class="ranking"')[1], re.S)
    # "(you)" shows on the page's own seat only (site.css): not a part of the place's name.
    items = [re.sub(r'<span class="you-marker">.*?</span>', "", item) for item in items]
    return [re.sub(r"<[^>]+>|\s+", " ", item).strip() for item in items]


def test_no_game_seats_more_players_than_the_ranking_has_place_names():
    assert max(rules.max_players for rules in all_rules()) <= PLACES


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_place_is_named_in_the_same_style(language):
    lines = ranking_lines(language)
    assert len(lines) == PLACES
    places = []
    for rank, line in enumerate(lines):
        match = re.fullmatch(rf"Player{rank} ?: (.+?) — {10 + rank} \w+", line)
        assert match, line
        places.append(match.group(1))
    # One style: words, no numeral, one shared noun ("place", "místo", "lloc", "hely"...).
    assert not any(re.search(r"\d", place) for place in places), places
    nouns = {place.split()[-1] for place in places}
    assert len(nouns) == 1, places
    assert len(set(places)) == PLACES, places


def test_the_english_places_read_as_ordinal_words():
    places = [line.split(": ", 1)[1].split(" — ")[0] for line in ranking_lines("en")]
    assert places == [
        "first place",
        "second place",
        "third place",
        "fourth place",
        "fifth place",
        "sixth place",
    ]
