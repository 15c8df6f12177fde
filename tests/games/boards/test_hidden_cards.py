"""Hidden cards never reach the wrong player, in HTML, JSON, the API or websocket frames, in every
game.

For many random positions, the page, the board fragment, the socket's frame and the JSON a
seat receives must be the same whether the cards it cannot see are the real ones or any
others consistent with its view: if a hidden card leaked, swapping it would change what is
sent. The public part of the board, cached and shared by everyone, is rendered afresh from
the swapped cards each time (and compared), so a leak into it is caught too.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from django.urls import reverse

from games import boards
from games.catalog import playable_games
from games.models import Table
from games.services.tables import table_create, table_join
from tests.conftest import client_for, forget_boards, play_random_moves
from tests.pages import without_per_response_tokens
from tests.support.api import call, token_for

pytestmark = pytest.mark.django_db

POSITIONS = 12
GAMES = {"district-noir": 2, "slide": 3, "gnav": 4, "point-city": 2}


def _received(client, table: Table, audience: boards.Audience, secret: str) -> tuple[bytes, dict]:
    html = client.get(reverse("table_detail", args=[table.pk])).content
    html += client.get(reverse("table_detail", args=[table.pk]), HTTP_HX_REQUEST="true").content
    html += client.get(reverse("table_log", args=[table.pk])).content  # the whole log
    # What the table's socket sends this page (a push, or the answer to its hello).
    html += boards.changed_since(table.pk, audience, boards.SentParts()).encode()
    data = client.get(reverse("table_view_json", args=[table.pk])).json()
    # The API's answer for the same seat (api/): the same view, nothing more.
    data["api"] = call("get", f"/api/tables/{table.pk}", secret).json()
    return without_per_response_tokens(html), data


@pytest.fixture(params=sorted(GAMES))
def game_table(request, make_user) -> Table:
    """A running table of each game, every seat a player."""
    users = [make_user() for _ in range(GAMES[request.param])]
    table = table_create(
        user=users[0], game=request.param, num_seats=len(users), seconds_per_move=86400
    )
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def _with_state(table: Table, state_json: dict) -> None:
    """The table with other cards at the same version: the cached public part is dropped, so
    that what is sent is rendered from these cards (a real change bumps the version)."""
    Table.objects.filter(pk=table.pk).update(state=state_json)
    table.refresh_from_db()
    forget_boards()


@pytest.mark.parametrize("position", range(POSITIONS))
def test_a_seat_receives_nothing_that_depends_on_cards_it_cannot_see(game_table, carol, position):
    rules = next(r for r in playable_games() if r.slug == game_table.game)
    rng = random.Random(position)
    table = play_random_moves(game_table, rng.randrange(0, 45), rng, keep_running=True)
    real = table.state
    seated = [(s.position, s.user) for s in table.seats.select_related("user")]
    for seat, user in [*seated, (None, carol)]:
        client = client_for(user)
        secret = token_for(user, "read")
        audience = boards.Audience(seat, user.pk)
        html, data = _received(client, table, audience, secret)
        view = rules.view(rules.from_json(real), seat)
        observer = 0 if seat is None else seat
        other = rules.sample_state(rules.view(rules.from_json(real), observer), observer, rng)
        if seat is None:
            # A spectator knows less than a seat: redraw what seat 0 cannot see either.
            assert rules.view(other, None) == view
        _with_state(table, rules.to_json(other))
        html_other, data_other = _received(client, table, audience, secret)
        _with_state(table, real)
        assert data_other == data
        assert html_other == html
        assert json.loads(json.dumps(data["view"])) == view
        assert data["api"]["view"] == data["view"]
        assert data["api"]["seat"] == seat


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
