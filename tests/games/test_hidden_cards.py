"""Hidden cards never reach the wrong player, in HTML or JSON.

For many random positions, the page and JSON a seat receives must be the same
whether the cards it cannot see are the real ones or any others consistent
with its view: if a hidden card leaked, swapping it would change what is sent.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from django.urls import reverse

from games.catalog import playable_games
from games.models import Table
from tests.conftest import client_for, play_random_moves
from tests.pages import without_per_response_tokens

pytestmark = pytest.mark.django_db

POSITIONS = 12


def _received(client, table: Table) -> tuple[bytes, dict]:
    html = client.get(reverse("table_detail", args=[table.pk])).content
    html += client.get(reverse("table_log", args=[table.pk])).content  # the whole log
    data = client.get(reverse("table_view_json", args=[table.pk])).json()
    return without_per_response_tokens(html), data


def _with_state(table: Table, state_json: dict) -> None:
    Table.objects.filter(pk=table.pk).update(state=state_json)
    table.refresh_from_db()


@pytest.mark.parametrize("position", range(POSITIONS))
def test_a_seat_receives_nothing_that_depends_on_cards_it_cannot_see(
    running_table, carol, position
):
    rules = next(r for r in playable_games() if r.slug == running_table.game)
    rng = random.Random(position)
    table = play_random_moves(running_table, rng.randrange(0, 45), rng)
    real = table.state
    seated = [(s.position, s.user) for s in table.seats.select_related("user")]
    for seat, user in [*seated, (None, carol)]:
        client = client_for(user)
        html, data = _received(client, table)
        view = rules.view(rules.from_json(real), seat)
        observer = 0 if seat is None else seat
        other = rules.sample_state(rules.view(rules.from_json(real), observer), observer, rng)
        if seat is None:
            # A spectator knows less than a seat: redraw what seat 0 cannot see either.
            assert rules.view(other, None) == view
        _with_state(table, rules.to_json(other))
        html_other, data_other = _received(client, table)
        _with_state(table, real)
        assert data_other == data
        assert html_other == html
        assert json.loads(json.dumps(data["view"])) == view


def test_the_opponents_hand_and_the_removed_cards_are_not_in_the_json(running_table):
    state = running_table.state
    for seat, user in [(s.position, s.user) for s in running_table.seats.select_related("user")]:
        data = client_for(user).get(reverse("table_view_json", args=[running_table.pk])).json()
        text = json.dumps(data)
        hidden_ids = set(state["hands"][1 - seat]) | set(state["removed"]) | set(state["deck"])
        shown_ids = {int(m) for m in re.findall(r'"id": (\d+)', text)}
        assert shown_ids, "the seat should see its own cards and the row"
        assert not shown_ids & hidden_ids
        assert set(state["hands"][seat]) <= shown_ids
