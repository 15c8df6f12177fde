"""The pace badge written in Python (``games.templatetags.pace.pace_badge_html``) says, byte for
byte and in every language, what the template it replaced said."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.template import Context, Template
from django.utils import translation

from games.models import PlayerPace
from games.selectors.pace import PACE_MIN_MOVES
from games.templatetags.pace import pace_badge_html

# templates/tables/partials/pace_badge.html before the badge moved to Python (its comment aside).
TEMPLATE_BEFORE = (
    "{% load i18n pace %}{% with kind=pace|pace_kind %}{% if kind %}"
    '{% if kind == "quick" %}{% translate "quick" context "pace" as label %}'
    '{% elif kind == "slow" %}{% translate "slow" context "pace" as label %}'
    '{% else %}{% translate "steady" context "pace" as label %}{% endif %}'
    "{% blocktranslate asvar words with label=label median=pace.median_seconds|duration_words"
    " share=pace.within_delay_share|percent timeouts=pace.timeouts_per_100|floatformat:1"
    " count abandoned=pace.abandoned %}Pace: {{ label }}. Over the last 90 days: a median of"
    " {{ median }} to move, {{ share }} of moves within the reminder delay, {{ timeouts }}"
    " timeouts per 100 moves, {{ abandoned }} game abandoned.{% plural %}Pace: {{ label }}."
    " Over the last 90 days: a median of {{ median }} to move, {{ share }} of moves within the"
    " reminder delay, {{ timeouts }} timeouts per 100 moves, {{ abandoned }} games abandoned."
    '{% endblocktranslate %} <span class="badge pace pace-{{ kind }}" role="img"'
    ' title="{{ words }}" aria-label="{{ words }}">{{ label }}</span>{% endif %}{% endwith %}'
)

PACES = [
    None,
    PlayerPace(median_seconds=50, within_delay_share=0.95, timeouts_per_100=1.5, moves=40),
    PlayerPace(median_seconds=600, within_delay_share=0.9, timeouts_per_100=0.0, moves=20),
    PlayerPace(median_seconds=2 * 3600, within_delay_share=0.333, timeouts_per_100=3.25, moves=99),
    PlayerPace(median_seconds=3 * 86400, within_delay_share=None, timeouts_per_100=12.0, moves=50),
    PlayerPace(median_seconds=None, within_delay_share=None, timeouts_per_100=100.0, moves=30),
    PlayerPace(median_seconds=90, within_delay_share=0.5, timeouts_per_100=0.05, moves=1000),
    PlayerPace(median_seconds=40, within_delay_share=1.0, moves=PACE_MIN_MOVES - 1),
]


@pytest.mark.parametrize("language", [code for code, _name in settings.LANGUAGES])
@pytest.mark.parametrize("abandoned", [0, 1, 2, 5, 1234])
def test_the_badge_is_what_the_template_wrote(language: str, abandoned: int) -> None:
    before = Template(TEMPLATE_BEFORE)
    with translation.override(language):
        for pace in PACES:
            if pace is not None:
                pace.abandoned = abandoned
            assert pace_badge_html(pace) == before.render(Context({"pace": pace}))


def test_the_badges_include_says_the_same() -> None:
    pace = PACES[1]
    included = Template('{% include "tables/partials/pace_badge.html" %}')
    assert included.render(Context({"pace": pace})) == pace_badge_html(pace) + "\n"
