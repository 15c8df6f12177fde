"""``{% memo_include %}`` reuses a rendered card or sentence only where it would be the same."""

from __future__ import annotations

import datetime as dt

import pytest
from django.template import Context, Template
from django.utils import translation

from games.templatetags import memo
from tests.conftest import client_for, play_random_moves, user_at
from tests.pages import without_per_response_tokens

GNAV_CARD = {"id": 40, "rank": 21}


@pytest.fixture(autouse=True)
def empty_memo():
    memo._memo.clear()
    yield
    memo._memo.clear()


def render(source: str, **values) -> str:
    return Template("{% load memo %}" + source).render(Context(values))


def test_the_same_html_as_an_include_with_only_the_values_given():
    plain = render(
        '{% include "games/gnav/card.html" with card=card size="small" only %}', card=GNAV_CARD
    )
    memo_tag = '{% memo_include "games/gnav/card.html" card=card size="small" %}'
    first = render(memo_tag, card=GNAV_CARD, names=["not", "seen"])
    again = render(memo_tag, card=GNAV_CARD)
    assert first == plain == again
    assert "Cuckoo" in plain
    assert len(memo._memo) >= 1


def test_other_values_other_html():
    tag = '{% memo_include "games/gnav/card.html" card=card size="small" %}'
    cuckoo = render(tag, card=GNAV_CARD)
    fool = render(tag, card={"id": 1, "rank": 1})
    assert "Cuckoo" in cuckoo and "Fool" in fool and "Cuckoo" not in fool


def test_a_fragment_is_never_reused_in_another_language():
    tag = '{% memo_include "games/district-noir/card_name.html" card=card %}'
    card = {"kind": "city", "value": 0, "name": "police"}
    with translation.override("en"):
        english = render(tag, card=card)
    with translation.override("cs"):
        czech = render(tag, card=card)
        assert czech == render(
            '{% include "games/district-noir/card_name.html" with card=card only %}', card=card
        )
    assert english == "the Police Station"
    assert czech != english


def test_escaping_is_part_of_the_key():
    tag = '{% memo_include "games/district-noir/log_entry.html" entry=entry names=names %}'
    values = {"entry": {"type": "round", "seat": 0, "round": 2}, "names": ["<b>Eve</b>"]}
    escaped = Template("{% load memo %}" + tag).render(Context(values))
    raw = Template("{% load memo %}" + tag).render(Context(values, autoescape=False))
    assert "&lt;b&gt;Eve" in escaped
    assert "<b>Eve</b>" in raw


def test_values_that_are_not_plain_data_are_rendered_every_time():
    source = '{% memo_include "tables/partials/clock.html" seat=seat %}'

    class Seat:
        deadline = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
        paused_remaining = None

    html = render(source, seat=Seat())
    assert "2030" in html
    assert memo._memo == {}


def test_the_memo_is_bounded(monkeypatch):
    monkeypatch.setattr(memo, "MEMO_SIZE", 3)
    for rank in range(1, 10):
        render('{% memo_include "games/gnav/rank_name.html" rank=r form="" %}', r=rank)
        assert len(memo._memo) <= 3


def board(client, url: str) -> str:
    """The board fragment, less the tokens that differ on every response."""
    return without_per_response_tokens(client.get(url, HTTP_HX_REQUEST="true").content.decode())


@pytest.mark.parametrize(
    ("game", "seats", "moves"),
    [("district-noir", 2, 12), ("gnav", 4, 10), ("slide", 3, 20), ("point-city", 2, 9)],
)
def test_a_board_reads_the_same_from_a_cold_and_a_warm_memo(make_user, game, seats, moves):
    from games.services.tables import table_create, table_join

    players = [make_user() for _ in range(seats)]
    table = table_create(user=players[0], game=game, num_seats=seats, seconds_per_move=86400)
    for player in players[1:]:
        table_join(table_id=table.pk, user=player)
    table = play_random_moves(table, moves)
    client = client_for(user_at(table, 0))
    url = f"/t/{table.pk}/"
    cold = board(client, url)
    assert memo._memo, "the board uses the memo"
    warm = board(client, url)
    memo._memo.clear()
    assert cold == warm == board(client, url)
    # A spectator's board, rendered after the seated player's, is the one a cold memo gives.
    spectator = board(client_for(make_user()), url)
    memo._memo.clear()
    assert spectator == board(client_for(make_user()), url)
