"""Slide's board through Django's test client: what each seat sees, clicks, and never sees.

States are made with the pure rules and stored on a real table, so a test can
look at any moment of a game without playing it through the services. A board is
two parts (games/boards.py): the public part (``#board-public``: every grid as a
spectator sees it, the same bytes for everyone) and the seat's private part
(``#board-private``: its own grid with its pick or its arrows, inside the move form).
"""

from __future__ import annotations

import html
import json
import random
import re
from dataclasses import replace

import pytest
from django.urls import reverse

from games import boards
from games.models import Move, Table
from games.rules import get_rules
from games.rules.slide.grid import HOLE, SIZE
from games.selectors.tables import table_page_for
from games.services.tables import table_create, table_join
from tests.conftest import client_for, forget_boards, user_at
from tests.factories import UserFactory
from tests.pages import without_per_response_tokens

pytestmark = pytest.mark.django_db

SLIDE = get_rules("slide")
HTMX = {"HTTP_HX_REQUEST": "true"}
ACTION = re.compile(r'name="action" value="([^"]*)"')
CELL = re.compile(r'class="sl-cell[^"]* sl-r\d sl-c\d')
PUBLIC_GRID = re.compile(r'<div class="panel sl-other[^"]*" data-seat="(\d)">')
# The clocks' "N minutes left" changes from one response to the next.
CLOCK = re.compile(r'<span class="clock".*?</span>')


# -- helpers ------------------------------------------------------------------------------


def _table(players: int) -> Table:
    """A running Slide table with ``players`` fresh users seated."""
    users = [UserFactory() for _ in range(players)]
    table = table_create(user=users[0], game="slide", num_seats=players, seconds_per_move=86400)
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


def _store(table: Table, state) -> None:
    """Puts ``state`` on the table as if it had been played there.

    The version stays (so that pages can be compared byte for byte): the cached public part
    of that version goes, or every page would show the one rendered before.
    """
    outcome = SLIDE.outcome(state)
    fields = {"state": SLIDE.to_json(state)}
    if outcome is not None:
        fields |= {"status": Table.Status.FINISHED, "outcome": outcome.to_json()}
    Table.objects.filter(pk=table.pk).update(**fields)
    table.refresh_from_db()
    forget_boards()


def _random_moves(state, count: int, rng: random.Random):
    """Up to ``count`` random legal moves; in the pick phase anyone may pick or change."""
    for _ in range(count):
        if SLIDE.is_over(state):
            break
        seat = rng.choice(SLIDE.active_seats(state))
        state = SLIDE.apply(state, seat, rng.choice(SLIDE.legal_actions(state, seat)))
    return state


def _finished_game(players: int, seed: int):
    state = SLIDE.setup(players, seed)
    # One changed pick, so the log holds every kind of event.
    state = SLIDE.apply(state, 0, {"type": "pick", "row": 0, "col": 0})
    state = SLIDE.apply(state, 0, {"type": "pick", "row": 1, "col": 1})
    return _random_moves(state, 10_000, random.Random(seed))


def _page(client, table: Table) -> str:
    response = client.get(reverse("table_detail", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _board(page: str) -> str:
    """Just the game's board, both parts (the rules panel beside it draws example cells too)."""
    return page[page.index('<div id="board" ') :]


def _public(page: str) -> str:
    """The public part: the same for every viewer (the board's top, then its end)."""
    start = page.index('<div id="board-public"')
    top = page[start : page.index('<div id="board-private"', start)]
    return top + page[page.index('<div id="board-public-end"') :]


def _private(page: str) -> str:
    """This viewer's private part (empty for a spectator of a running game)."""
    start = page.index('<div id="board-private"')
    return page[start : page.index('<div id="board-public-end"', start)]


def _received(client, table: Table) -> tuple[str, dict]:
    page = CLOCK.sub("", without_per_response_tokens(_page(client, table)))
    data = client.get(reverse("table_view_json", args=[table.pk])).json()
    return page, data


def _buttons(page: str) -> list[dict]:
    return [json.loads(html.unescape(value)) for value in ACTION.findall(page)]


def _key(action: dict) -> str:
    return json.dumps(action, sort_keys=True)


def _viewers(table: Table) -> list[tuple[int | None, object]]:
    seated = [(s.position, s.user) for s in table.seats.select_related("user")]
    return [*seated, (None, UserFactory())]


def _act(client, table: Table, action, version=None, htmx=True):
    data = {"action": action if isinstance(action, str) else json.dumps(action)}
    data["version"] = table.version if version is None else version
    return client.post(reverse("table_act", args=[table.pk]), data, **(HTMX if htmx else {}))


def _face_down_cells(state, seat: int) -> list[int]:
    return [
        i for i, card in enumerate(state.grids[seat]) if card != HOLE and not state.up >> card & 1
    ]


# -- every seat, every moment --------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (3, 3), (3, 4), (6, 5)])
def test_every_seat_and_a_spectator_get_a_board_with_buttons_only_for_legal_moves(players, seed):
    table = _table(players)
    rng = random.Random(seed)
    total = 16 * 2 * players
    for moves in sorted(rng.sample(range(total), 3)):
        state = _random_moves(SLIDE.setup(players, seed), moves, random.Random(moves))
        _store(table, state)
        for seat, user in _viewers(table):
            page = _board(_page(client_for(user), table))
            public, private = _public(page), _private(page)
            view = SLIDE.view(state, seat)
            assert 'class="panel sl-status"' in public
            offered = {_key(a) for a in view["legal_actions"]}
            if view["my_pick"] is not None:  # the current pick is marked, not offered again
                offered.discard(
                    _key({"type": "pick", "row": view["my_pick"][0], "col": view["my_pick"][1]})
                )
                assert "your pick" in page
            assert {_key(a) for a in _buttons(private)} == offered
            assert not _buttons(public)
            if state.phase == "pick":
                assert f"{view['picked_count']} of {players} have chosen" in page
            else:
                # Each slide has an arrow by the grid and a line in the plain list.
                assert all(_buttons(page).count(a) == 2 for a in view["legal_actions"])
            # Every grid is drawn in public, as a spectator sees it (the page hides its own copy);
            # a seat's own grid is in its private part.
            assert PUBLIC_GRID.findall(public) == [str(s) for s in range(players)]
            assert len(CELL.findall(public)) == 16 * players
            assert len(CELL.findall(private)) == (0 if seat is None else 16)
            if seat is not None:
                assert private.count('aria-label="Your grid"') == 1


def _sliding(table: Table, seed: int, row: int, col: int):
    """The table's game of 3 at its first slide, after every seat picked (row, col)."""
    state = SLIDE.setup(3, seed)
    for seat in range(3):
        state = SLIDE.apply(state, seat, {"type": "pick", "row": row, "col": col})
    _store(table, state)
    return state


def test_the_slide_arrows_show_which_cards_move_for_each_entry():
    table = _table(3)
    state = _sliding(table, 11, 1, 2)
    mover = state.turn
    page = _board(_page(client_for(user_at(table, mover)), table))
    public, private = _public(page), _private(page)
    view = SLIDE.view(state, mover)
    assert {e["edge"] for e in view["entries"]} == {"top", "bottom", "left", "right"}
    for entry in view["entries"]:
        # Every card that shifts for this entry carries its arrow: on the mover's own grid, and
        # on the public copy of it that everyone else sees.
        assert public.count(f"sl-mv sl-mv-{entry['edge']}") == len(entry["shifts"])
        assert private.count(f"sl-mv sl-mv-{entry['edge']}") == len(entry["shifts"])
        assert f"sl-arrow sl-k0 sl-edge-{entry['edge']}" in private
    assert "slide it in from the left of row 2: 2 cards move right." in private
    assert "slide it in from the bottom of column 3: 2 cards move up." in private
    assert "2. Then press an arrow at the edge of your grid." in private
    # The mover's page shows its own centre (the cards to choose) instead of the public one,
    # and its own words instead of the public line on who slides (slide.css, data-seat).
    assert 'class="sl-take"' in private and f'data-turn="{mover}"' in public
    assert f'class="sl-turn-line" data-seat="{mover}"' in public
    watcher = _board(_page(client_for(user_at(table, (mover + 1) % 3)), table))
    assert "sl-arrow" not in watcher and "takes a card from the centre" in watcher
    assert "sl-take" not in _private(watcher)


def test_with_the_zero_shift_option_a_corner_hole_has_an_arrow_on_every_side():
    table = _table(2)
    state = SLIDE.setup(2, 12, {"allowZeroShiftEntry": True})
    for seat in range(2):
        state = SLIDE.apply(state, seat, {"type": "pick", "row": 0, "col": 0})
    _store(table, state)
    page = _board(_page(client_for(user_at(table, state.turn)), table))
    for edge in ("top", "bottom", "left", "right"):
        assert f"sl-edge-{edge}" in page
    assert "slide it in from the left of row 1: 0 cards move right." in page


def test_the_token_holder_and_the_order_of_play_are_shown():
    table = _table(3)
    state = SLIDE.setup(3, 5)
    _store(table, state)
    page = _page(client_for(None), table)
    names = table_page_for(table, UserFactory()).names
    order = [names[s] for s in SLIDE.view(state, None)["order"]]
    listed = re.findall(
        r'<li class="sl-who[^"]*" data-seat="(\d)">\s*(?:<span class="sl-token"[^>]*>★</span>)?'
        r'\s*<span class="name">([^<]+)</span>',
        page,
    )
    assert listed == [(str(s), names[s]) for s in SLIDE.view(state, None)["order"]]
    assert [name for _, name in listed] == order
    assert f"Round 1 begins; {order[0]} holds the first-player token." in page


# -- simultaneous picks through the site -----------------------------------------------------


def test_a_pick_can_be_changed_until_the_last_one_is_in_and_stays_secret_until_then():
    table = _table(3)
    clients = [client_for(user_at(table, s)) for s in range(3)]
    first = _act(clients[0], table, {"type": "pick", "row": 0, "col": 0})
    assert first.status_code == 200
    table.refresh_from_db()
    page = _page(clients[0], table)
    assert "You picked the card at row 1, column 1." in page and "1 of 3 have chosen" in page

    changed = _act(clients[0], table, {"type": "pick", "row": 1, "col": 1})
    assert changed.status_code == 200
    table.refresh_from_db()
    page = _page(clients[0], table)
    assert "You picked the card at row 2, column 2." in page
    assert "changed their choice." in page
    assert SLIDE.view(SLIDE.from_json(table.state), 0)["my_pick"] == [1, 1]
    for other in clients[1:]:
        seen = _board(_page(other, table))
        assert "sl-picked" not in seen and "your pick" not in seen
        assert "1 of 3 have chosen" in seen

    # The others pick on the board they loaded before the change: still accepted.
    stale = table.version - 1
    assert _act(clients[1], table, {"type": "pick", "row": 3, "col": 3}, stale).status_code == 200
    assert _act(clients[2], table, {"type": "pick", "row": 0, "col": 2}, stale).status_code == 200
    table.refresh_from_db()
    state = SLIDE.from_json(table.state)
    assert state.phase == "slide"
    reveals = [e for e in state.log if e["type"] == "reveal"]
    assert [(e["seat"], e["row"], e["col"]) for e in reveals] == [(0, 1, 1), (1, 3, 3), (2, 0, 2)]
    assert "revealed a" in _page(clients[1], table)
    late = _act(clients[0], table, {"type": "pick", "row": 2, "col": 2})
    assert late.status_code in {400, 409}
    table.refresh_from_db()
    assert SLIDE.from_json(table.state) == state


def test_a_move_without_javascript_redirects_back_to_the_table():
    table = _table(2)
    response = _act(
        client_for(user_at(table, 0)), table, {"type": "pick", "row": 2, "col": 1}, htmx=False
    )
    assert response.status_code == 302
    assert Move.objects.filter(table=table).count() == 1


# -- the public part and the private part ----------------------------------------------------


def _spectator_double(state, rng: random.Random):
    """A state no spectator can tell from ``state``: every unknown card and every pick redrawn."""
    other = SLIDE.sample_state(SLIDE.view(state, 0), 0, rng)
    picks = tuple(
        rng.choice(_face_down_cells(other, s)) if pick >= 0 else -1
        for s, pick in enumerate(other.picks)
    )
    return replace(other, picks=picks)


def _mid_pick(players: int, seed: int):
    """A pick phase after some slides, where some seats have picked and some not."""
    rng = random.Random(seed)
    state = _random_moves(SLIDE.setup(players, seed), 4 * players, rng)
    while not (state.phase == "pick" and 0 < sum(p >= 0 for p in state.picks) < players - 1):
        state = _random_moves(state, 1, rng)
    return state


def _slide_phase(players: int, seed: int):
    """A slide phase after the first slide of the round."""
    state, rng = _mid_pick(players, seed), random.Random(seed)
    while state.phase != "slide":
        state = _random_moves(state, 1, rng)
    return _random_moves(state, 1, rng)


@pytest.mark.parametrize(("players", "seed"), [(3, 31), (4, 32), (6, 33)])
@pytest.mark.parametrize("moment", [_mid_pick, _slide_phase])
def test_the_public_part_is_the_same_bytes_for_everyone_and_hides_every_unknown(
    players, seed, moment
):
    table = _table(players)
    state = moment(players, seed)
    _store(table, state)
    seats = list(table.seats.select_related("user"))
    public = boards.public_part(table, seats).html
    assert 'class="panel sl-status"' in public
    for _seat, user in _viewers(table):
        forget_boards()  # each page renders the part itself, as if it were the first to ask
        board = _board(_page(client_for(user), table))
        top, end = boards.split_public(public)
        assert board[board.index(">") + 1 :].startswith(top)  # right inside #board
        assert end in board
    # Nothing of any seat's own view: no pick, no move, no "you".
    for private_only in ("sl-picked", "your pick", "You picked", 'name="action"', "Your grid"):
        assert private_only not in public
    # Other cards and other picks, the same for a spectator: the same bytes.
    rng = random.Random(seed)
    for _ in range(3):
        other = _spectator_double(state, rng)
        assert SLIDE.view(other, None) == SLIDE.view(state, None)
        assert other.values != state.values or other.picks != state.picks
        _store(table, other)
        assert boards.public_part(table, seats).html == public
    _store(table, state)


def _private_part(table: Table, seat: int) -> tuple[str, bool]:
    """A seat's private part, as boards.board_for renders it beside the public part."""
    public = boards.public_part(table)
    html, _digest, my_turn = boards.private_part(
        table, boards.Audience(position=seat), public.names, public_log=public.log_digest
    )
    # A seat's log is the spectators' (no line shows a card only it knows): no log of its own.
    assert "log-private" not in html
    return str(html), my_turn


def test_a_seats_private_part_has_its_own_pick_and_its_moves_and_no_other_grid():
    table = _table(3)
    state = SLIDE.apply(SLIDE.setup(3, 41), 1, {"type": "pick", "row": 2, "col": 3})
    _store(table, state)
    for seat in range(3):
        html, my_turn = _private_part(table, seat)
        view = SLIDE.view(state, seat)
        legal = {_key(a) for a in view["legal_actions"]}
        assert html.count('aria-label="Your grid"') == 1 and "'s grid" not in html
        assert len(CELL.findall(html)) == 16
        assert 'id="board-form"' in html
        if seat == 1:  # its pick, marked where it is, and every other card to pick instead
            assert not my_turn
            assert "You picked the card at row 3, column 4." in html and "your pick" in html
            assert re.search(r'class="sl-cell sl-r2 sl-c3 sl-back sl-picked"', html)
            picked = _key({"type": "pick", "row": 2, "col": 3})
            assert picked in legal
            assert {_key(a) for a in _buttons(html)} == legal - {picked}
        else:
            assert my_turn
            assert "sl-picked" not in html and "your pick" not in html
            assert {_key(a) for a in _buttons(html)} == legal and len(legal) == 16


def test_the_movers_private_part_has_the_centre_to_choose_from_and_every_slide():
    table = _table(3)
    state = _sliding(table, 42, 1, 1)
    mover = state.turn
    html, my_turn = _private_part(table, mover)
    assert my_turn
    actions = SLIDE.legal_actions(state, mover)
    assert sorted(map(_key, _buttons(html))) == sorted(map(_key, actions * 2))  # arrow + list
    for k, card in enumerate(state.centre):
        assert f'id="sl-take-{k}" value="{card}"' in html
    for seat in (s for s in range(3) if s != mover):
        waiting, my_turn = _private_part(table, seat)
        assert not my_turn and not _buttons(waiting) and "sl-take" not in waiting
        assert "You slide later this round, in the order of play." in waiting


def test_a_seats_private_part_does_not_change_when_another_seat_slides():
    """A push leaves out a private part that did not change: a slide changes the mover's."""
    table = _table(3)
    state = SLIDE.setup(3, 43)
    for seat in range(3):
        state = SLIDE.apply(state, seat, {"type": "pick", "row": 0, "col": seat})
    _store(table, state)
    last = (state.turn + 2) % 3
    before = {s: _private_part(table, s) for s in range(3)}
    moved = SLIDE.apply(state, state.turn, SLIDE.legal_actions(state, state.turn)[0])
    _store(table, moved)
    after = {s: _private_part(table, s) for s in range(3)}
    assert after[last] == before[last]
    assert after[state.turn] != before[state.turn]


# -- hidden information ----------------------------------------------------------------------


def _redraw_for_spectator(state, rng: random.Random):
    """A state a spectator cannot tell from ``state``: seat 0's unknowns and pick redrawn."""
    other = SLIDE.sample_state(SLIDE.view(state, 0), 0, rng)
    if other.picks[0] >= 0:
        picks = (rng.choice(_face_down_cells(other, 0)), *other.picks[1:])
        other = replace(other, picks=picks)
    return other


@pytest.mark.parametrize(
    ("players", "position", "stop"),
    [
        (2, 0, "anywhere"),
        (2, 1, "mid-pick"),
        (3, 2, "anywhere"),
        (3, 3, "mid-pick"),
        (6, 4, "anywhere"),
        (6, 5, "mid-pick"),
    ],
)
def test_a_seat_receives_nothing_that_depends_on_cards_or_picks_it_cannot_see(
    players, position, stop
):
    table = _table(players)
    rng = random.Random(position)
    state = _random_moves(SLIDE.setup(players, position), rng.randrange(0, 24 * players), rng)
    if stop == "mid-pick":  # some picks in, some not: the picks made must stay secret
        while not (state.phase == "pick" and 0 < sum(p >= 0 for p in state.picks) < players):
            state = _random_moves(state, 1, rng)
    _store(table, state)
    for seat, user in _viewers(table):
        client = client_for(user)
        page, data = _received(client, table)
        view = SLIDE.view(state, seat)
        assert json.loads(json.dumps(data["view"])) == view
        if seat is None:
            other = _redraw_for_spectator(state, rng)
        else:
            other = SLIDE.sample_state(view, seat, rng)
        assert SLIDE.view(other, seat) == view
        _store(table, other)
        page_other, data_other = _received(client, table)
        _store(table, state)
        assert data_other == data
        assert page_other == page


@pytest.mark.parametrize("players", [2, 3, 6])
def test_no_face_down_card_id_or_value_reaches_anyone(players):
    table = _table(players)
    state = _random_moves(SLIDE.setup(players, 9), 7 * players, random.Random(9))
    _store(table, state)
    face_down = {
        card for grid in state.grids for card in grid if card != HOLE and not state.up >> card & 1
    }
    assert face_down
    for _seat, user in _viewers(table):
        data = client_for(user).get(reverse("table_view_json", args=[table.pk])).json()
        shown = {int(m) for m in re.findall(r'"card": (\d+)', json.dumps(data))}
        assert not shown & face_down
        for rows in data["view"]["grids"]:
            for cell in (c for row in rows for c in row if c is not None):
                assert (cell["card"] is None) == (cell["value"] is None)


def test_another_seats_pick_never_shows_before_the_reveal():
    table = _table(3)
    state = SLIDE.apply(SLIDE.setup(3, 21), 1, {"type": "pick", "row": 2, "col": 3})
    _store(table, state)
    viewers = [(s, u) for s, u in _viewers(table) if s != 1]
    before = {s: _received(client_for(u), table) for s, u in viewers}
    for seat, _user in viewers:
        page, data = before[seat]
        assert "sl-picked" not in _board(page) and "your pick" not in _board(page)
        assert data["view"]["picked"] == [False, True, False]
        assert not any(
            cell and cell.get("picked") for row in data["view"]["grids"][1] for cell in row
        )
        if seat is None:
            assert data["view"]["my_pick"] is None
    # Had seat 1 picked any other card, nobody else would receive anything different.
    for cell in random.Random(1).sample(_face_down_cells(state, 1), 4):
        _store(table, replace(state, picks=(-1, cell, -1)))
        for seat, user in viewers:
            assert _received(client_for(user), table) == before[seat]
    _store(table, state)
    own = _page(client_for(user_at(table, 1)), table)
    assert "You picked the card at row 3, column 4." in own and "your pick" in own


# -- the end ----------------------------------------------------------------------------------


def test_every_log_event_renders_as_a_sentence():
    table = _table(3)
    state = _finished_game(3, 4)
    _store(table, state)
    # The whole log: the board itself shows only the latest entries.
    page = client_for(user_at(table, 0)).get(reverse("table_log", args=[table.pk])).content
    log = page.decode()[page.decode().index('class="log panel"') :]
    entries = re.findall(r"<li>(.*?)</li>", log, re.S)
    assert len(entries) == len(state.log)
    types = {e["type"] for e in state.log}
    assert types == {"round", "pick", "reveal", "slide", "score"}
    names = table_page_for(table, UserFactory()).names
    assert all(any(name in entry for name in names) for entry in entries)
    assert "holds the first-player token." in log
    assert "has chosen a card." in log and "changed their choice." in log
    assert "revealed a" in log and "scores" in log
    for edge in {e["edge"] for e in state.log if e["type"] == "slide"}:
        where = "row" if edge in {"left", "right"} else "column"
        assert f"slid it in from the {edge} of {where}" in log


@pytest.mark.parametrize("viewer", [0, None])
def test_a_finished_game_shows_the_cancelled_groups_and_each_score_broken_down(viewer):
    table = _table(3)
    state = _finished_game(3, 8)
    _store(table, state)
    user = user_at(table, viewer) if viewer is not None else UserFactory()
    page = _page(client_for(user), table)
    result = page[page.index('class="result-details panel"') : page.index("game-public game-final")]
    breakdown = SLIDE.outcome(state).details["breakdown"]
    assert "The lowest total wins" in result
    assert result.count("sl-gone") == sum(b["cancelled"] for b in breakdown)
    assert result.count('class="sl-group"') == sum(len(b["groups"]) for b in breakdown)
    for b in breakdown:
        kept = [b["values"][r][c] for r, c in b["kept"]]
        total = " + ".join(map(str, kept)) if kept else "0"
        assert f"{total} = <strong>{b['score']}</strong>" in " ".join(result.split())
        assert f"{b['score']} points" in result
    assert 'name="action"' not in page
    # The board itself shows every final grid once (for the replay; the table page hides it
    # below the result's), with the cancelled cards crossed out; nothing looks playable.
    public = _public(page)
    public = public[public.index("game-public game-final") : public.index('class="log panel')]
    assert PUBLIC_GRID.findall(public) == ["0", "1", "2"]
    assert 'class="sl-others sl-end"' in public
    assert public.count("sl-gone") == sum(b["cancelled"] for b in breakdown)
    for needless in ("sl-now", "sl-sliding", "sl-mv", "sl-pickable", "sl-arrow", "sl-centre"):
        assert needless not in _board(page)
    assert "The game is over." in public
    assert "sl-cell" not in _private(page)


# -- refusals -----------------------------------------------------------------------------------


def _slide_phase_table() -> tuple[Table, object]:
    table = _table(3)
    state = SLIDE.setup(3, 2)
    for seat in range(3):
        state = SLIDE.apply(state, seat, {"type": "pick", "row": 0, "col": seat})
    _store(table, state)
    return table, state


@pytest.mark.parametrize(
    ("phase", "who", "action", "status", "message"),
    [
        ("pick", "seat", "{not json", 400, "could not be read"),
        ("pick", "seat", {"type": "slide", "card": 0, "edge": "left"}, 400, "Pick one of your"),
        ("pick", "seat", {"type": "pick", "row": 4, "col": 0}, 400, "not allowed"),
        ("pick", "seat", {"type": "pick", "row": "0", "col": 0}, 400, "not allowed"),
        ("pick", "seat", {"type": "pick", "row": 0, "col": 0, "peek": True}, 400, "not allowed"),
        ("pick", "seat", [1, 2], 400, "not allowed"),
        ("pick", "stranger", {"type": "pick", "row": 0, "col": 0}, 403, "not seated"),
        ("pick", "anonymous", {"type": "pick", "row": 0, "col": 0}, 403, "Sign in"),
        (
            "slide",
            "mover",
            {"type": "pick", "row": 1, "col": 1},
            400,
            "Take a card from the centre",
        ),
        (
            "slide",
            "mover",
            {"type": "slide", "card": 99, "edge": "bottom"},
            400,
            "Take one of the cards",
        ),
        ("slide", "mover", {"type": "slide", "card": "centre", "edge": "top"}, 400, "not allowed"),
        ("slide", "mover", "top-edge", 400, "pushes at least one card"),
        ("slide", "waiter", "first-legal", 400, "not your turn"),
        ("pick", "seat", "stale", 409, "moved on"),
    ],
)
def test_bad_posts_get_a_4xx_with_a_message_and_change_nothing(phase, who, action, status, message):
    if phase == "pick":
        table, state = _table(3), None
        mover = 0
    else:
        table, state = _slide_phase_table()
        mover = state.turn
    version = table.version
    if action == "stale":
        # The seat picked on this board; the same board (another tab, a double click) is stale.
        _act(client_for(user_at(table, mover)), table, {"type": "pick", "row": 0, "col": 0})
        action = {"type": "pick", "row": 0, "col": 1}
    elif action == "top-edge":
        # Every seat's hole is in row 0: the top edge pushes nothing.
        action = {"type": "slide", "card": state.centre[0], "edge": "top"}
    elif action == "first-legal":
        action = SLIDE.legal_actions(state, mover)[0]
    user = {
        "seat": lambda: user_at(table, mover),
        "mover": lambda: user_at(table, mover),
        "waiter": lambda: user_at(table, (mover + 1) % 3),
        "stranger": UserFactory,
        "anonymous": lambda: None,
    }[who]()
    before = Table.objects.get(pk=table.pk)
    moves = Move.objects.filter(table=table).count()
    response = _act(client_for(user), table, action, version=version)
    assert response.status_code == status
    assert message in response.content.decode()
    after = Table.objects.get(pk=table.pk)
    assert (after.version, after.state) == (before.version, before.state)
    assert Move.objects.filter(table=table).count() == moves


def test_a_face_up_card_cannot_be_picked():
    table = _table(2)
    state = SLIDE.setup(2, 3)
    rng = random.Random(3)
    while state.round == 1:
        state = _random_moves(state, 1, rng)
    _store(table, state)
    face_up = next(i for i, card in enumerate(state.grids[0]) if state.up >> card & 1)
    action = {"type": "pick", "row": face_up // SIZE, "col": face_up % SIZE}
    response = _act(client_for(user_at(table, 0)), table, action)
    assert response.status_code == 400
    assert "Face-up cards can never be picked." in response.content.decode()
    table.refresh_from_db()
    assert SLIDE.from_json(table.state) == state
