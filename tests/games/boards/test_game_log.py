"""The board shows the latest log entries; a page shows the whole log, as that seat may see it.

The board is rendered and sent after every move, so its log is cut to the latest
``LOG_TAIL`` entries: its cost and size stay the same at move 10 and move 300.
"""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from games.boards import LOG_TAIL
from games.models import Table
from games.rules import get_rules
from games.services.tables import table_create, table_join
from tests.conftest import client_for, play_random_moves

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
SLIDE = get_rules("slide")
LOG = re.compile(r'<section class="log panel[^"]*".*?</section>', re.S)
ENTRY = re.compile(r"<li>(.*?)</li>", re.S)


def _entries(html: str) -> list[str]:
    return [" ".join(entry.split()) for entry in ENTRY.findall(html)]


def _log_section(html: str) -> str:
    return LOG.search(html).group(0)


@pytest.fixture
def long_table(alice, bob) -> Table:
    """A game of Slide far enough along for its log to outgrow the board (Slide never ends
    early, and every move adds to its log)."""
    table = table_create(user=alice, game="slide", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    table = play_random_moves(table, 30, random.Random(3))
    assert table.is_running
    view = SLIDE.view(SLIDE.from_json(table.state), 0)
    assert len(view["log"]) > LOG_TAIL + 5
    return table


def test_the_board_shows_the_latest_entries_and_links_to_the_whole_log(long_table, alice):
    client = client_for(alice)
    total = len(client.get(reverse("table_view_json", args=[long_table.pk])).json()["view"]["log"])
    board = client.get(reverse("table_detail", args=[long_table.pk]), **HTMX).content.decode()
    section = _log_section(board)
    latest = _entries(section)
    assert len(latest) == LOG_TAIL
    assert f'<ol reversed start="{total}"' in section
    log_url = reverse("table_log", args=[long_table.pk])
    assert f'<a href="{log_url}">Show the {total - LOG_TAIL} earlier entries</a>' in section

    whole = client.get(log_url)
    assert whole.status_code == 200
    entries = _entries(_log_section(whole.content.decode()))
    assert len(entries) == total
    assert entries[:LOG_TAIL] == latest  # newest first, as on the board


def test_a_short_log_is_shown_whole_without_a_link(running_table, alice):
    client = client_for(alice)
    board = client.get(reverse("table_detail", args=[running_table.pk]), **HTMX).content.decode()
    section = _log_section(board)
    assert 0 < len(_entries(section)) <= LOG_TAIL
    assert "earlier entr" not in section
    whole = client.get(reverse("table_log", args=[running_table.pk]))
    assert _entries(_log_section(whole.content.decode())) == _entries(section)


def test_a_spectator_reads_the_log_as_a_spectator(long_table, carol):
    url = reverse("table_log", args=[long_table.pk])
    for client in (client_for(carol), client_for(None)):
        response = client.get(url)
        assert response.status_code == 200
        assert _entries(_log_section(response.content.decode()))


def test_the_log_of_a_missing_table_is_a_404(alice):
    assert client_for(alice).get(reverse("table_log", args=[987654321])).status_code == 404
