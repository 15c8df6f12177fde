"""The Point City board as players and spectators receive it, through Django's test client.

The board is two parts (games/boards.py): the public part (public.html, the spectator's view: all
of Point City but the moves), the same bytes for everyone, and the private part (private.html)
of the seat to play: its instruction and its moves, with an interactive copy of the market or of
the civic token display.
"""

from __future__ import annotations

import html
import json
import random
import re
from collections import Counter
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from games import boards
from games.catalog import get_game
from games.models import Move, Table
from games.rules import get_rules
from games.services.tables import table_create, table_join
from tests.conftest import client_for, forget_boards, play_random_moves, user_at
from tests.pages import without_per_response_tokens

pytestmark = pytest.mark.django_db

PC = get_rules("point-city")
HTMX = {"HTTP_HX_REQUEST": "true"}
BUTTON = re.compile(r'name="action" value="([^"]*)"')
CLOCK = re.compile(rb"(<time [^>]*>)[^<]*")  # "23 hours, 59 minutes left" ticks between requests


def _open_table(make_user, num_players: int, difficulty: int = 1) -> Table:
    users = [make_user() for _ in range(num_players)]
    table = table_create(
        user=users[0],
        game="point-city",
        num_seats=num_players,
        seconds_per_move=86400,
        options={"automa_difficulty": difficulty},
    )
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def _viewers(table: Table, spectator) -> list[tuple[int | None, Any]]:
    seated = [(s.position, s.user) for s in table.seats.select_related("user")]
    return [*seated, (None, spectator)]


def _buttons(page: str) -> list[dict[str, Any]]:
    return [json.loads(html.unescape(value)) for value in BUTTON.findall(page)]


def _key(action: dict[str, Any]) -> str:
    return json.dumps(action, sort_keys=True)


def _playout(num_players: int, seed: int, difficulty: int = 1, builds: bool = False):
    """A finished game; with ``builds``, a player prefers takes that pay for a building."""
    rng = random.Random(seed)
    state = PC.setup(num_players, seed, {"automa_difficulty": difficulty})
    while PC.outcome(state) is None:
        seat = PC.active_seats(state)[0]
        actions = PC.legal_actions(state, seat)
        paying = [a for a in actions if a["type"] == "take" and a["pay"]] if builds else []
        state = PC.apply(state, seat, rng.choice(paying or actions))
    return state


def _show(table: Table, state, user) -> str:
    """The page ``user`` receives with ``state`` stored in ``table``."""
    fields: dict[str, Any] = {"state": PC.to_json(state)}
    outcome = PC.outcome(state)
    if outcome is not None:
        fields |= {
            "status": Table.Status.FINISHED,
            "outcome": outcome.to_json(),
            "finished_at": timezone.now(),
        }
    Table.objects.filter(pk=table.pk).update(**fields)
    forget_boards()  # the public part is cached by version, which this leaves as it was
    response = client_for(user).get(reverse("table_detail", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


# -- the board at many points of many games -------------------------------------------------


@pytest.mark.parametrize(
    ("num_players", "moves"),
    [(1, 0), (1, 14), (2, 0), (2, 23), (2, 60), (3, 31), (4, 9), (4, 44)],
)
def test_every_seat_and_a_spectator_get_buttons_for_exactly_their_legal_actions(
    make_user, num_players, moves
):
    table = play_random_moves(_open_table(make_user, num_players), moves, random.Random(moves))
    state = PC.from_json(table.state)
    for seat, user in _viewers(table, make_user()):
        response = client_for(user).get(reverse("table_detail", args=[table.pk]))
        assert response.status_code == 200
        page = response.content.decode()
        assert 'class="panel pc-market-panel' in page
        legal = PC.legal_actions(state, seat) if seat is not None else []
        drawn = _buttons(page)
        assert Counter(map(_key, drawn)) == Counter(map(_key, legal))
        # Takes come in the rules' order: for each pair, the default payment first.
        assert [a for a in drawn if a["type"] == "take"] == [
            a for a in legal if a["type"] == "take"
        ]
        if num_players == 1:
            assert "The Automa" in page


# -- the public part and the private part ---------------------------------------------------

# What only the seat to play may get: moves, and what it is told to do.
PRIVATE_ONLY = [
    'name="action"',
    "<button",
    "pc-market-pick",
    "pc-supply-pick",
    "pc-prompt",
    "Your turn:",
]
ENABLED_CELL = re.compile(r'data-cell="(\d\d)" aria-pressed="false">')
PARTS = [(1, 0), (1, 17), (2, 11), (2, 40), (3, 25), (4, 9)]


def _public(table: Table) -> str:
    """The public part, rendered afresh (not from the cache)."""
    forget_boards()
    return str(boards.public_part(table).html)


def _private(table: Table, seat: int) -> tuple[str, bool]:
    public = boards.public_part(table)
    html, _digest, my_turn = boards.private_part(
        table, boards.Audience(position=seat), public.names, public_log=public.log_digest
    )
    return str(html), my_turn


@pytest.mark.parametrize(("num_players", "moves"), PARTS)
def test_the_public_part_is_the_same_bytes_for_everyone_and_holds_no_move(
    make_user, num_players, moves
):
    rng = random.Random(moves)
    table = play_random_moves(_open_table(make_user, num_players), moves, rng)
    public = _public(table)
    for _seat, user in _viewers(table, make_user()):
        forget_boards()
        page = client_for(user).get(reverse("table_detail", args=[table.pk])).content.decode()
        # As it is: the page's board is this part's top, the seat's private part, its end.
        top, end = boards.split_public(public)
        assert top in page and end in page
    for text in PRIVATE_ONLY:
        assert text not in public
    assert 'class="panel pc-market-panel"' in public and 'class="panel pc-supply"' in public
    assert public.count('class="panel pc-player') == num_players + (num_players == 1)
    # Nothing a spectator cannot see changes it: redraw the removed cards and the pile below
    # its top card.
    state = PC.from_json(table.state)
    other = PC.sample_state(PC.view(state, 0), 0, rng)
    assert other.order != state.order
    Table.objects.filter(pk=table.pk).update(state=PC.to_json(other))
    table.refresh_from_db()
    assert _public(table) == public


@pytest.mark.parametrize(("num_players", "moves"), PARTS)
def test_the_private_part_holds_the_moves_of_the_seat_to_play_and_nothing_for_the_others(
    make_user, num_players, moves
):
    """Point City hides no card from a seat: a private part is the seat to play's moves."""
    table = play_random_moves(_open_table(make_user, num_players), moves, random.Random(moves))
    state = PC.from_json(table.state)
    for seat in range(num_players):
        html, my_turn = _private(table, seat)
        legal = PC.legal_actions(state, seat)
        assert my_turn == bool(legal)
        assert Counter(map(_key, _buttons(html))) == Counter(map(_key, legal))
        if not legal:
            assert "<section" not in html
            continue
        assert 'class="panel pc-prompt"' in html
        usable = {f"{r}{c}" for a in legal if a["type"] == "take" for r, c in a["cells"]}
        usable |= {f"{a['cell'][0]}{a['cell'][1]}" for a in legal if a["type"] == "flip"}
        if usable:  # the market to pick in: a card is a button when a take or a flip uses it
            assert "pc-market-pick" in html
            assert set(ENABLED_CELL.findall(html)) == usable
            market = PC.view(state, None)["market"]
            cards = sum(1 for row in market for slot in row if slot)
            assert html.count('<button type="button" class="pc-cell') == cards
        else:
            assert not ENABLED_CELL.findall(html)


def test_the_automas_next_two_cards_are_marked_while_the_game_runs(make_user):
    table = play_random_moves(_open_table(make_user, 1), 6, random.Random(2))
    rng = random.Random(3)
    while not any(
        a["type"] == "take" for a in PC.view(PC.from_json(table.state), 0)["legal_actions"]
    ):
        table = play_random_moves(table, 1, rng)  # (a deal of its own: not always a take now)
    view = PC.view(PC.from_json(table.state), None)
    r, c = view["automa"]["cell"]
    marked = sum(1 for row in (r, (r + 1) % 4) if view["market"][row][c] is not None)
    assert marked
    public = _public(table)
    assert public.count("pc-automa-next") == marked
    assert "The Automa takes these two cards after your turn" in public
    private, _ = _private(table, 0)
    assert private.count("pc-automa-next") == marked  # the market the seat picks in


@pytest.mark.parametrize("num_players", [1, 2])
def test_after_the_end_nothing_is_marked_for_a_next_move(make_user, num_players):
    """Issue #16, point 14: the Automa's next cards stayed marked after the end."""
    table = _open_table(make_user, num_players, 2)
    state = _playout(num_players, seed=3, difficulty=2)
    for seat, user in _viewers(table, make_user()):
        page = _show(table, state, user)
        board = page[page.index('<div id="board"') : page.index('<div id="board-message"')]
        # What comes next (play again, the replay, the lobby) is no move of this game.
        board = re.sub(r'<nav class="next-steps.*?</nav>', "", board, flags=re.S)
        assert "The game is over." in board
        for mark in ["pc-automa-next", "pc-legend", "pc-moving", "to play", "pc-near"]:
            assert mark not in board, (seat, mark)
        for text in PRIVATE_ONLY:
            assert text not in board, (seat, text)


def test_no_part_has_an_inline_script_or_style_the_picking_script_is_the_games():
    assert get_game("point-city").script == "js/games/point-city.js"
    names = ["Ada", "Bo", "Cy", "Di"]
    for num_players, seed in [(1, 1), (2, 2), (3, 3), (4, 4)]:
        rng = random.Random(seed)
        state = PC.setup(num_players, seed)
        for _ in range(40):
            if PC.outcome(state) is not None:
                break
            seat = PC.active_seats(state)[0]
            parts = [("public", None)] + [("private", s) for s in range(num_players)]
            for part, viewer in parts:
                html = render_to_string(
                    f"games/point-city/{part}.html",
                    {"view": PC.view(state, viewer), "names": names},
                )
                for inline in ["<script", " style=", " onclick="]:
                    assert inline not in html, (part, viewer, inline)
            state = PC.apply(state, seat, rng.choice(PC.legal_actions(state, seat)))


def test_the_market_shows_each_card_by_the_side_it_lies_and_the_pile_its_top_card(make_user):
    table = play_random_moves(_open_table(make_user, 2), 12, random.Random(5))
    view = PC.view(PC.from_json(table.state), None)
    page = client_for(None).get(reverse("table_detail", args=[table.pk])).content.decode()
    market = page[page.index('class="pc-market"') : page.index('class="pc-deck"')]
    for row in view["market"]:
        for slot in row:
            if slot and slot["side"] == "building":
                assert html.escape(slot["card"]["building"]["name"]) in market
    assert market.count('class="pc-card pc-resource') == sum(
        1 for row in view["market"] for slot in row if slot and slot["side"] == "resource"
    )
    pile = page[page.index('class="pc-deck"') : page.index('class="pc-deck-count"')]
    top = view["deck"]["top"]
    assert f"pc-resource pc-r-{top['resource']}" in pile


def test_a_player_choosing_a_civic_token_gets_one_button_per_token_on_display(make_user):
    table = _open_table(make_user, 2)
    state = _playout_until(1, lambda actions: actions[0]["type"] == "token")
    page = _show(table, state, user_at(table, state.current))
    assert {a["token"] for a in _buttons(page)} == set(state.supply)
    assert "choose a civic token" in page


def test_a_take_offer_names_both_cards_and_what_it_costs(make_user):
    table = _open_table(make_user, 2)
    state = _playout_until(
        1, lambda actions: any(a["type"] == "take" and a["pay"] for a in actions)
    )
    page = _show(table, state, user_at(table, state.current))
    actions = PC.legal_actions(state, state.current)
    take = next(a for a in actions if a["type"] == "take" and a["pay"])
    value = html.escape(json.dumps(take, sort_keys=True, separators=(",", ":")))
    button = page[page.index(value) :]
    button = button[: button.index("</button>")]
    view = PC.view(state, state.current)
    for r, c in take["cells"]:
        card = view["market"][r][c]["card"]
        name = card["building"]["name"] if card["building"] else card["resource"].capitalize()
        assert html.escape(name) in button
    assert "pay" in button and "pc-paid" in button


def _playout_until(seed: int, wanted):
    """The first state of a random 2-player game whose legal actions are ``wanted``."""
    rng = random.Random(seed)
    state = PC.setup(2, seed)
    while PC.outcome(state) is None:
        seat = PC.active_seats(state)[0]
        actions = PC.legal_actions(state, seat)
        if wanted(actions):
            return state
        state = PC.apply(state, seat, rng.choice(actions))
    raise AssertionError("no such state in this game")


# -- the log ----------------------------------------------------------------------------------

EVENT_WORDS = {
    "start": "plays first",
    "flip": "flipped the card in row",
    "take": "took",
    "refill": "New in the market",
    "draw": "top two cards of the draw pile",
    "token": "took the civic token",
    "automa": "The Automa took",
    "pass": "passed",
    "end": "the game is over",
}


def test_every_kind_of_log_event_reads_as_a_sentence():
    seen: dict[str, tuple[dict, dict]] = {}
    for seed, num_players in [(0, 1), (1, 2), (2, 2), (3, 3)]:
        view = PC.view(_playout(num_players, seed), 0)
        for event in view["log"]:
            seen.setdefault(event["type"], (event, view))
    event, view = seen["end"]
    seen["pass"] = ({"type": "pass", "seat": 0}, view)  # only when nothing can be taken
    assert set(seen) == set(EVENT_WORDS)
    names = ["Ada", "Bo", "Cy"]
    for kind, (event, view) in seen.items():
        text = " ".join(
            render_to_string(
                "games/point-city/log_entry.html",
                {"entry": event, "names": names, "players": len(view["players"])},
            ).split()
        )
        assert EVENT_WORDS[kind] in text, (kind, text)
        assert "None" not in text and "{" not in text
        if kind in {"start", "flip", "take", "draw", "token", "pass"}:
            assert names[event["seat"]] in text


# -- the end ----------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_a_finished_game_shows_every_score_broken_down(make_user, num_players):
    table = _open_table(make_user, num_players)
    state = _playout(num_players, seed=num_players)
    page = _show(table, state, user_at(table, 0))
    result = page[page.index('class="result') :]
    assert "Scores in detail" in result and "Resource cards left" in result
    for seat, breakdown in enumerate(PC.outcome(state).details["breakdown"]):
        assert f"<td>{breakdown['buildings']}</td>" in result
        assert f"<td>{breakdown['total']}</td>" in result
        assert html.escape(user_at(table, seat).public_name) in result
    assert "stars" not in result


def _solo(difficulty: int, won: bool):
    for seed in range(80):
        state = _playout(1, seed, difficulty, builds=True)
        if PC.outcome(state).details["won"] == won:
            return state
    pytest.skip(f"no solo game found with won={won} at difficulty {difficulty}")


@pytest.mark.parametrize(("difficulty", "won"), [(1, True), (2, True), (2, False), (3, False)])
def test_a_finished_solo_game_shows_the_stars_and_the_automas_score(make_user, difficulty, won):
    table = _open_table(make_user, 1, difficulty)
    state = _solo(difficulty, won)
    details = PC.outcome(state).details
    page = _show(table, state, user_at(table, 0))
    result = " ".join(page[page.index('class="result') :].split())
    automa, mine = details["automa"]["total"], details["breakdown"][0]["total"]
    if won:
        assert details["stars"] == difficulty
        stars = "star." if difficulty == 1 else "stars."
        assert f"You beat the Automa, {mine} to {automa}: you earn {difficulty} {stars}" in result
        assert result.count("pc-star-on") == difficulty
    else:
        assert f"The Automa wins, {automa} to {mine}: no stars this time." in result
        assert "pc-star-on" not in result
    assert f"Automa difficulty: {difficulty} star" in result
    assert f"<td>{details['automa']['buildings']}</td>" in result


# -- hidden information -----------------------------------------------------------------------


def _received(client, table: Table) -> tuple[bytes, dict]:
    forget_boards()  # the state changes below keep the version: render the public part afresh
    page = client.get(reverse("table_detail", args=[table.pk])).content
    data = client.get(reverse("table_view_json", args=[table.pk])).json()
    return CLOCK.sub(rb"\1", without_per_response_tokens(page)), data


def _card_ids(value: Any) -> set[int]:
    """The ids of every card shown anywhere in a view (dicts with a tier and a resource)."""
    if isinstance(value, dict):
        ids = {value["id"]} if {"id", "tier", "resource"} <= value.keys() else set()
        return ids.union(*(_card_ids(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_card_ids(v) for v in value))
    return set()


@pytest.mark.parametrize(("num_players", "moves"), [(1, 9), (2, 0), (2, 27), (3, 14), (4, 40)])
def test_no_one_receives_anything_that_depends_on_the_removed_cards_or_the_pile_below_its_top(
    make_user, num_players, moves
):
    rng = random.Random(num_players * 100 + moves)
    table = play_random_moves(_open_table(make_user, num_players), moves, rng)
    real = table.state
    state = PC.from_json(real)
    hidden = set(range(state.deck_size, len(PC.cards))) | set(
        range(state.next_card + 1, state.deck_size)
    )
    for seat, user in _viewers(table, make_user()):
        client = client_for(user)
        page, data = _received(client, table)
        assert not _card_ids(data["view"]) & hidden
        observer = 0 if seat is None else seat
        other = PC.sample_state(PC.view(state, observer), observer, rng)
        assert other.order != state.order  # the hidden cards really were redrawn
        Table.objects.filter(pk=table.pk).update(state=PC.to_json(other))
        page_other, data_other = _received(client, table)
        Table.objects.filter(pk=table.pk).update(state=real)
        assert data_other == data
        assert page_other == page


# -- bad posts --------------------------------------------------------------------------------


def _act(client, table: Table, action: Any, version: int | None = None, htmx: bool = True):
    data = {"action": action if isinstance(action, str) else json.dumps(action)}
    data["version"] = table.version if version is None else version
    return client.post(reverse("table_act", args=[table.pk]), data, **(HTMX if htmx else {}))


@pytest.mark.parametrize(
    ("who", "action", "status"),
    [
        ("mover", "{not json", 400),
        ("mover", {"type": "take", "cells": [[0, 0], [2, 2]], "pay": {}}, 400),
        ("mover", {"type": "take", "cells": [[0, 0], [0, 1]], "pay": {"ingenuity": 9}}, 400),
        ("mover", {"type": "take", "cells": [[0, 0], [0, 4]], "pay": {}}, 400),
        ("mover", {"type": "take", "cells": "a1", "pay": {}}, 400),
        ("mover", {"type": "flip", "cell": [7, 0]}, 400),
        ("mover", {"type": "token", "token": 0}, 400),
        ("mover", {"type": "pass"}, 400),
        ("mover", {"type": "draw", "extra": 1}, 400),
        ("mover", [], 400),
        ("waiter", {"type": "draw"}, 400),
        ("stranger", {"type": "draw"}, 403),
        ("anonymous", {"type": "draw"}, 403),
    ],
)
def test_bad_posts_get_a_4xx_and_change_nothing(make_user, who, action, status):
    table = _open_table(make_user, 2)
    mover = PC.active_seats(PC.from_json(table.state))[0]
    user = {
        "mover": user_at(table, mover),
        "waiter": user_at(table, 1 - mover),
        "stranger": make_user(),
        "anonymous": None,
    }[who]
    before = Table.objects.get(pk=table.pk)
    response = _act(client_for(user), table, action)
    assert response.status_code == status
    assert b'role="alert"' in response.content
    after = Table.objects.get(pk=table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert not Move.objects.exists()


def test_a_repeated_submit_is_refused_and_the_move_is_applied_once(make_user):
    table = _open_table(make_user, 2)
    client = client_for(user_at(table, PC.active_seats(PC.from_json(table.state))[0]))
    assert _act(client, table, {"type": "draw"}).status_code == 200
    again = _act(client, table, {"type": "draw"})
    assert again.status_code == 409
    assert b"moved on" in again.content
    assert Move.objects.count() == 1


def test_without_javascript_a_take_posts_and_redirects_back_to_the_table(make_user):
    table = _open_table(make_user, 2)
    mover = PC.active_seats(PC.from_json(table.state))[0]
    client = client_for(user_at(table, mover))
    page = client.get(reverse("table_detail", args=[table.pk])).content.decode()
    take = next(a for a in _buttons(page) if a["type"] == "take")
    response = _act(client, table, take, htmx=False)
    assert response.status_code == 302
    assert Move.objects.get().action == take


def test_each_city_shows_its_live_score_broken_down(make_user):
    """During the game, every city's score is shown with what it is made of."""
    table = _open_table(make_user, 2)
    rng = random.Random(8)
    state = PC.setup(2, 8)
    for _ in range(30):
        seat = PC.active_seats(state)[0]
        actions = PC.legal_actions(state, seat)
        paying = [a for a in actions if a["type"] == "take" and a["pay"]]
        state = PC.apply(state, seat, rng.choice(paying or actions))
    page = _show(table, state, user_at(table, 0))
    view = PC.view(state, 0)
    for player in view["players"]:
        parts = player["breakdown"]
        assert parts["total"] == player["score"]
        assert f"Buildings {parts['buildings']} · civic tokens {parts['token_points']}" in page
