"""Slide (Claude Clément, Gigamic 2024), following docs/rules/slide.md.

Each of 16 rounds: every seat blindly picks one face-down card of its own 4 x 4
grid (simultaneous; a seat may change its pick until the last one is in), the
picks are revealed into the centre, then from the token holder clockwise each
seat takes a centre card and slides it into its grid from an end of the hole's
row or column. At the end, same-number orthogonal groups cancel; lowest sum wins.

Actions:
  ``{"type": "pick", "row": r, "col": c}``: a face-down cell of your own grid
  (picking again replaces your pick; picking the same cell changes nothing);
  ``{"type": "slide", "card": id, "edge": "top"|"bottom"|"left"|"right"}``: a
  centre card, entering at that end of the hole's column (top/bottom) or row
  (left/right). A grid has one hole, so the edge names the entry exactly.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, ClassVar

from games.rules.base import (
    NOT_ALLOWED,
    Action,
    IllegalAction,
    Outcome,
    Rules,
    gettext_noop,
    ranks_from_scores,
)
from games.rules.slide.grid import (
    CELLS,
    EDGES,
    HOLE,
    SIZE,
    cell_pos,
    entry_edges,
    entry_preview,
    score_grid,
    slide_in,
)
from games.rules.slide.state import (
    DECK_SIZE,
    OVER,
    PICK,
    ROUNDS,
    SLIDE,
    ZERO_SHIFT,
    SlideState,
    SlideView,
    full_deck,
    read_options,
    sample_from_view,
    state_from_json,
    state_to_json,
)

_PICK_NOW = gettext_noop("Pick one of your face-down cards now.")
_FACE_UP = gettext_noop("Face-up cards can never be picked.")
_SLIDE_NOW = gettext_noop("Take a card from the centre and slide it into your grid now.")
_NOT_IN_CENTRE = gettext_noop("Take one of the cards in the centre.")
_BAD_EDGE = gettext_noop(
    "Slide the card in from an end of the hole's row or column that pushes at least one card."
)


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _put(items: tuple[Any, ...], index: int, item: Any) -> tuple[Any, ...]:
    return (*items[:index], item, *items[index + 1 :])


class Slide(Rules[SlideState, SlideView]):
    slug = "slide"
    name = "Slide"
    min_players = 2
    max_players = 6
    duration_minutes = (10, 20)
    complexity = 1
    default_options: ClassVar[dict[str, Any]] = {ZERO_SHIFT: False}
    option_labels: ClassVar[dict[str, str]] = {
        ZERO_SHIFT: gettext_noop("Allow entries that shift no card")
    }

    # -- setup and turn structure -------------------------------------------------

    def setup(
        self, num_players: int, seed: int, options: dict[str, Any] | None = None
    ) -> SlideState:
        if not self.min_players <= num_players <= self.max_players:
            raise ValueError("Slide is for 2 to 6 players.")
        allow = read_options(options)
        rng = random.Random(seed)
        deck = full_deck()
        rng.shuffle(deck)
        first = rng.randrange(num_players)
        return SlideState(
            num_players=num_players,
            seed=seed,
            allow_zero_shift=allow,
            values=tuple(deck),
            grids=tuple(tuple(range(s * CELLS, (s + 1) * CELLS)) for s in range(num_players)),
            up=0,
            picks=(-1,) * num_players,
            centre=(),
            round=1,
            first=first,
            phase=PICK,
            turn=-1,
            log=({"type": "round", "seat": first, "round": 1},),
        )

    def is_over(self, state: SlideState) -> bool:
        return state.phase == OVER

    def active_seats(self, state: SlideState) -> list[int]:
        if state.phase == PICK:
            return list(range(state.num_players))
        if state.phase == SLIDE:
            return [state.turn]
        return []

    def waiting_seats(self, state: SlideState) -> list[int]:
        if state.phase == PICK:
            return [s for s, pick in enumerate(state.picks) if pick < 0]
        return self.active_seats(state)

    def legal_actions(self, state: SlideState, seat: int) -> list[Action]:
        if state.phase == PICK and type(seat) is int and 0 <= seat < state.num_players:
            return [
                {"type": "pick", "row": i // SIZE, "col": i % SIZE}
                for i, card in enumerate(state.grids[seat])
                if not state.up >> card & 1
            ]
        if state.phase == SLIDE and seat == state.turn:
            edges = entry_edges(state.grids[seat].index(HOLE), state.allow_zero_shift)
            return [
                {"type": "slide", "card": card, "edge": edge}
                for card in state.centre
                for edge in edges
            ]
        return []

    # -- apply ----------------------------------------------------------------------

    def apply(self, state: SlideState, seat: int, action: Action) -> SlideState:
        self.check_turn(state, seat)
        if not isinstance(action, dict):
            raise IllegalAction(NOT_ALLOWED)
        if state.phase == PICK:
            if action.get("type") != "pick":
                raise IllegalAction(_PICK_NOW)
            row, col = _int(action.get("row")), _int(action.get("col"))
            if set(action) != {"type", "row", "col"} or row is None or col is None:
                raise IllegalAction(NOT_ALLOWED)
            if not (0 <= row < SIZE and 0 <= col < SIZE):
                raise IllegalAction(NOT_ALLOWED)
            cell = row * SIZE + col
            if state.up >> state.grids[seat][cell] & 1:
                raise IllegalAction(_FACE_UP)
            return self._pick(state, seat, cell)
        if action.get("type") != "slide":
            raise IllegalAction(_SLIDE_NOW)
        card, edge = _int(action.get("card")), action.get("edge")
        if set(action) != {"type", "card", "edge"} or card is None or edge not in EDGES:
            raise IllegalAction(NOT_ALLOWED)
        if card not in state.centre:
            raise IllegalAction(_NOT_IN_CENTRE)
        grid = state.grids[seat]
        if edge not in entry_edges(grid.index(HOLE), state.allow_zero_shift):
            raise IllegalAction(_BAD_EDGE)
        return self._slide(state, seat, card, edge)

    def _pick(self, state: SlideState, seat: int, cell: int) -> SlideState:
        old = state.picks[seat]
        if old == cell:
            return state
        picks = _put(state.picks, seat, cell)
        log = (*state.log, {"type": "pick", "seat": seat, "changed": old >= 0})
        if -1 in picks:
            return replace(state, picks=picks, log=log)
        # The last pick is in: every picked card goes face up into the centre at once.
        grids, centre, events, up = [], [], [], state.up
        for s, (grid, pick) in enumerate(zip(state.grids, picks, strict=True)):
            card = grid[pick]
            grids.append(_put(grid, pick, HOLE))
            centre.append(card)
            up |= 1 << card
            row, col = divmod(pick, SIZE)
            events.append(
                {
                    "type": "reveal",
                    "seat": s,
                    "row": row,
                    "col": col,
                    "card": card,
                    "value": state.values[card],
                }
            )
        return replace(
            state,
            grids=tuple(grids),
            up=up,
            picks=(-1,) * state.num_players,
            centre=tuple(centre),
            phase=SLIDE,
            turn=state.first,
            log=(*log, *events),
        )

    def _slide(self, state: SlideState, seat: int, card: int, edge: str) -> SlideState:
        grid = state.grids[seat]
        row, col = divmod(grid.index(HOLE), SIZE)
        grids = _put(state.grids, seat, slide_in(grid, edge, card))
        centre = tuple(c for c in state.centre if c != card)
        log = (
            *state.log,
            {
                "type": "slide",
                "seat": seat,
                "card": card,
                "value": state.values[card],
                "edge": edge,
                "row": row,
                "col": col,
            },
        )
        following = (seat + 1) % state.num_players
        if following != state.first:
            return replace(state, grids=grids, centre=centre, turn=following, log=log)
        if state.round < ROUNDS:
            # Step C: the token moves one seat to the left, and the next round begins.
            first = (state.first + 1) % state.num_players
            event = {"type": "round", "seat": first, "round": state.round + 1}
            return replace(
                state,
                grids=grids,
                centre=centre,
                round=state.round + 1,
                first=first,
                phase=PICK,
                turn=-1,
                log=(*log, event),
            )
        over = replace(state, grids=grids, centre=centre, phase=OVER, turn=-1, log=log)
        outcome = self.outcome(over)
        assert outcome is not None
        events = tuple(
            {"type": "score", "seat": s, "score": b["score"], "cards_left": b["cards_left"]}
            for s, b in enumerate(outcome.details["breakdown"])
        )
        return replace(over, log=(*log, *events))

    # -- outcome --------------------------------------------------------------------

    def outcome(self, state: SlideState) -> Outcome | None:
        if state.phase != OVER:
            return None
        breakdown = [score_grid([state.values[c] for c in grid]) for grid in state.grids]
        return Outcome(
            ranks=ranks_from_scores([(-b["score"], -b["cards_left"]) for b in breakdown]),
            scores=[b["score"] for b in breakdown],
            reason="score",
            details={"lowest_wins": True, "breakdown": breakdown},
        )

    # -- view -----------------------------------------------------------------------

    def view(self, state: SlideState, seat: int | None) -> SlideView:
        n = state.num_players
        me = seat if type(seat) is int and 0 <= seat < n else None
        values, up = state.values, state.up
        grids = []
        for s, grid in enumerate(state.grids):
            mine = state.picks[s] if s == me else -1
            cells: list[dict[str, Any] | None] = []
            for i, card in enumerate(grid):
                if card == HOLE:
                    cells.append(None)
                elif up >> card & 1:
                    cells.append({"card": card, "value": values[card]})
                else:
                    cells.append({"card": None, "value": None, "picked": i == mine})
            grids.append([cells[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)])
        entries = []
        if state.phase == SLIDE:
            hole = state.grids[state.turn].index(HOLE)
            entries = [entry_preview(hole, e) for e in entry_edges(hole, state.allow_zero_shift)]
        my_pick = state.picks[me] if me is not None else -1
        outcome = self.outcome(state)
        view: SlideView = {
            "seat": seat,
            "num_players": n,
            "active_seats": self.active_seats(state),
            "waiting_seats": self.waiting_seats(state),
            "legal_actions": self.legal_actions(state, me) if me is not None else [],
            "log": [dict(event) for event in state.log],
            "over": outcome is not None,
            "phase": state.phase,
            "round": state.round,
            "rounds": ROUNDS,
            "first_player": state.first,
            "order": [(state.first + k) % n for k in range(n)],
            "turn": state.turn if state.phase == SLIDE else None,
            "grids": grids,
            "picked": [pick >= 0 for pick in state.picks],
            "picked_count": sum(pick >= 0 for pick in state.picks),
            "my_pick": cell_pos(my_pick) if my_pick >= 0 else None,
            "centre": [{"card": card, "value": values[card]} for card in state.centre],
            "entries": entries,
            "options": {ZERO_SHIFT: state.allow_zero_shift},
            "out_of_play": DECK_SIZE - CELLS * n,
        }
        if outcome is not None:
            view["outcome"] = outcome.to_json()
        return view

    # -- storage and sampling ---------------------------------------------------------

    def to_json(self, state: SlideState) -> dict[str, Any]:
        return state_to_json(state)

    def from_json(self, data: dict[str, Any]) -> SlideState:
        return state_from_json(data)

    def sample_state(self, view: SlideView, seat: int, rng: random.Random) -> SlideState:
        return sample_from_view(view, seat, rng)
