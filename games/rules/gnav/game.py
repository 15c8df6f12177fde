"""Gnav, a four-seat three-life elimination match, as in docs/rules/gnav.md §2.

One game is the whole match. The only decisions are the player's at ``turn``:
``{"type": "keep"}`` or ``{"type": "ask"}`` (trade with the next participant), and for
the dealer ``{"type": "keep"}`` or ``{"type": "draw"}`` (trade with the stock). Everything
that follows automatically (passes, Dragoon and Cat penalties, the Cat's undo, the
Cuckoo's stop, the showdown, skipped deals, the next deal) happens inside ``apply``; see
``steps``. Option ``cat_undoes_trades`` (default on) is the Cat's undo (§2.5, reading A7).

Log events (``seat`` is who the event is about; cards are ``{"id", "rank"}`` or ``None``):
``deal`` (seat: dealer; deal, button, order, resting, dealt: own card only), ``skip``
(seat: button; deal, resting), ``knock`` (card: the Fool), ``keep``, ``ask`` (to: the
next participant or ``None`` for the stock), ``trade`` (target, gave, got: cards shown to
the two traders only), ``pass`` (a House/Horse; seat ``None`` when turned up from the
stock and set aside; asker, card), ``cuckoo``/``dragoon``/``cat`` (the same shape),
``exchange`` (seat swapped with the stock; gave, got: shown to that seat only), ``undo``
(seat: the Cat's holder or ``None``; trades: how many were undone), ``life`` (reason:
dragoon, cat, lowest, fool or next_lowest; lives left), ``out``, ``showdown`` (seat:
dealer; void; cards of the seats compared), ``rest`` (rests next deal), ``end`` (seat:
the winner or ``None``; reason: last_survivor or draw).

View keys beyond the conventional ones: ``options``; ``lives`` and ``out_order`` (per seat:
how many seats were already out when it went out, ``None`` while alive); ``deal`` (deals
so far, skipped ones included); ``button`` and ``dealer`` (the effective dealer);
``resting``; ``order`` (seats still in the deal, in turn order, dealer last); ``turn``;
``card`` (the viewer's own card); ``fools`` (seats marked as holding a Fool); ``trades``
([asker, receiver] pairs standing since the deal or the last Cat); ``stock``, ``discard``
and ``removed`` (pile sizes); ``aside`` (stock cards set aside, face up).
"""

from __future__ import annotations

import random
from typing import Any

from games.rules.base import (
    NOT_ALLOWED,
    Action,
    IllegalAction,
    Outcome,
    Rules,
    gettext_noop,
    ranks_from_scores,
)
from games.rules.gnav.state import (
    NUM_SEATS,
    PACK,
    START_LIVES,
    GnavState,
    state_from_json,
    state_to_json,
)
from games.rules.gnav.steps import WorkingState
from games.rules.gnav.view import GnavView, card_json, face_json, render_log, sample_state

_PLAYER_CHOICES = ("keep", "ask")
_DEALER_CHOICES = ("keep", "draw")


class Gnav(Rules[GnavState, GnavView]):
    slug = "gnav"
    name = "Gnav"
    min_players = NUM_SEATS
    max_players = NUM_SEATS
    duration_minutes = (10, 20)
    complexity = 2
    default_options = {"cat_undoes_trades": True}
    option_labels = {"cat_undoes_trades": gettext_noop("A Cat undoes every trade of the deal")}

    def setup(
        self, num_players: int, seed: int, options: dict[str, Any] | None = None
    ) -> GnavState:
        if num_players != NUM_SEATS:
            raise ValueError("Gnav is played by exactly 4 players.")
        unknown = set(options or {}) - set(self.default_options)
        if unknown:
            raise ValueError(f"Gnav has no options {sorted(unknown)}.")
        chosen = {**self.default_options, **(options or {})}
        rng = random.Random(seed)
        faces = list(PACK)
        rng.shuffle(faces)
        button = rng.randrange(NUM_SEATS)  # the first dealer is a random seat (A2)
        nobody: tuple[None, ...] = (None,) * NUM_SEATS
        before_first_deal = GnavState(
            seed=seed,
            cat_undo=bool(chosen["cat_undoes_trades"]),
            faces=tuple(faces),
            lives=(START_LIVES,) * NUM_SEATS,
            out_order=nobody,
            deal=0,
            button=button,
            dealer=button,
            resting=(),
            order=(),
            turn=None,
            dealt=nobody,
            hands=nobody,
            fools=(False,) * NUM_SEATS,
            trades=(),
            stock=(),
            aside=(),
            discard=(),
            removed=(),
            log=(),
        )
        table = WorkingState(before_first_deal)
        table.start_deal([])
        return table.freeze()

    def active_seats(self, state: GnavState) -> list[int]:
        return [] if state.turn is None else [state.turn]

    def legal_actions(self, state: GnavState, seat: int) -> list[Action]:
        if state.turn is None or seat != state.turn:
            return []
        choices = _DEALER_CHOICES if seat == state.dealer else _PLAYER_CHOICES
        return [{"type": kind} for kind in choices]

    def is_over(self, state: GnavState) -> bool:
        return state.turn is None

    def apply(self, state: GnavState, seat: int, action: Action) -> GnavState:
        self.check_turn(state, seat)
        choices = _DEALER_CHOICES if seat == state.dealer else _PLAYER_CHOICES
        if not isinstance(action, dict) or len(action) != 1 or action.get("type") not in choices:
            raise IllegalAction(NOT_ALLOWED)
        table = WorkingState(state)
        if action["type"] == "keep":
            table.keep(seat)
        else:
            table.request(seat)
        return table.freeze()

    def view(self, state: GnavState, seat: int | None) -> GnavView:
        faces = state.faces
        outcome = self.outcome(state)
        view: GnavView = {
            "seat": seat,
            "num_players": NUM_SEATS,
            "active_seats": self.active_seats(state),
            "legal_actions": [] if seat is None else self.legal_actions(state, seat),
            "log": render_log(state, seat),
            "over": outcome is not None,
            "options": {"cat_undoes_trades": state.cat_undo},
            "lives": list(state.lives),
            "out_order": list(state.out_order),
            "deal": state.deal,
            "button": state.button,
            "dealer": state.dealer,
            "resting": list(state.resting),
            "order": list(state.order),
            "turn": state.turn,
            "card": None if seat is None else card_json(faces, state.hands[seat]),
            "fools": [s for s in range(NUM_SEATS) if state.fools[s]],
            "trades": [list(pair) for pair in state.trades],
            "stock": len(state.stock),
            "aside": [face_json(faces, card) for card in state.aside],
            "discard": len(state.discard),
            "removed": len(state.removed),
        }
        if outcome is not None:
            view["outcome"] = outcome.to_json()
        return view

    def outcome(self, state: GnavState) -> Outcome | None:
        """Seats score how many others they outlasted; the winner outlasted all three."""
        if state.turn is not None:
            return None
        winner = next((s for s in range(NUM_SEATS) if state.lives[s] > 0), None)
        scores = [
            NUM_SEATS - 1 if seat == winner else _place(state.out_order[seat])
            for seat in range(NUM_SEATS)
        ]
        breakdown = [
            {"lives": lives, "outlasted": score, "out_in_deal": None, "out_by": None}
            for lives, score in zip(state.lives, scores)
        ]
        deal = 0
        for event in state.log:
            if event["type"] in ("deal", "skip"):
                deal = event["deal"]
            elif event["type"] == "life" and event["lives"] == 0:
                breakdown[event["seat"]].update(out_in_deal=deal, out_by=event["reason"])
        return Outcome(
            ranks=ranks_from_scores([(score,) for score in scores]),
            scores=[float(score) for score in scores],
            reason="last_survivor" if winner is not None else "draw",
            # Scores count the seats outlasted: a ranking, not points to show.
            details={
                "winner": winner,
                "deals": state.deal,
                "breakdown": breakdown,
                "scored": False,
            },
        )

    def to_json(self, state: GnavState) -> dict[str, Any]:
        return state_to_json(state)

    def from_json(self, data: dict[str, Any]) -> GnavState:
        return state_from_json(data)

    def sample_state(self, view: GnavView, seat: int, rng: random.Random) -> GnavState:
        return sample_state(view, seat, rng)


def _place(out_order: int | None) -> int:
    """How many seats one outlasted: every seat but the winner is out when the match ends."""
    assert out_order is not None
    return out_order
