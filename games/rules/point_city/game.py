"""Point City (rules: docs/rules/point-city.md), for 1 to 4 players.

Actions (all plain JSON dicts):

- ``{"type": "flip", "cell": [row, col]}``: the optional free flip (§3.1), before taking.
- ``{"type": "take", "cells": [[r, c], [r, c]], "pay": {kind: count}}``: two adjacent market
  cards, first cell first in reading order. ``pay`` counts the resource cards spent, by kind
  (``"energy"``, ``"double-energy"``, ``"ingenuity"``, ...; see ``KIND_NAMES``); it is ``{}``
  when nothing is built or permanent resources cover the cost. Permanent resources are always
  used first. A resource card taken in the same action counts among the cards that may pay.
- ``{"type": "draw"}``: the top two cards of the draw pile, as resources.
- ``{"type": "token", "token": id}``: choose a civic token after building a civic building.
- ``{"type": "pass"}``: only on the last turn, when no two adjacent cards can be taken (the
  site's reading P10: the published rules do not cover it); the game then ends.

In solo play (one seat) the Automa of §9 plays inside ``apply`` after each turn.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from games.rules.base import (
    NOT_ALLOWED,
    Action,
    IllegalAction,
    Outcome,
    Rules,
    gettext_noop,
    ranks_from_scores,
    solo_outcome,
)
from games.rules.point_city.cards import (
    CARDS,
    CIVIC,
    RESOURCES,
    STARTER,
    TOKENS,
    Card,
    building_json,
)
from games.rules.point_city.market import automa_turn, refill
from games.rules.point_city.pay import card_kind, pair_payments, pay_from_json, pay_json
from games.rules.point_city.scoring import automa_score, permanent, score
from games.rules.point_city.state import (
    CELLS,
    CHOOSE,
    EMPTY,
    LINES,
    OVER,
    PAIRS,
    SETUP,
    SIZE,
    TAKE,
    Player,
    PointCityState,
    cell_json,
    state_from_json,
    state_to_json,
    tier_of_position,
)
from games.rules.point_city.view import PointCityView, face_index, render_view, sample

NOT_ADJACENT = gettext_noop("Take two cards that are side by side in the market.")
CANNOT_PAY = gettext_noop("You cannot pay for that building with that payment.")
NO_FLIP = gettext_noop("You can only flip a card in a row or column showing only resources.")
FLIPPED = gettext_noop("You have already flipped a card this turn.")
DECK_EMPTY = gettext_noop("The draw pile is empty.")
CHOOSE_TOKEN = gettext_noop("Choose a civic token first.")
NO_TOKEN = gettext_noop("That civic token is not on display.")


def _cell(value: Any) -> int | None:
    """A market cell from ``[row, col]``, or None if malformed."""
    if not isinstance(value, list) or len(value) != 2:
        return None
    row, col = value
    if type(row) is not int or type(col) is not int or not (0 <= row < SIZE and 0 <= col < SIZE):
        return None
    return row * SIZE + col


class PointCity(Rules[PointCityState, PointCityView]):
    slug = "point-city"
    name = "Point City"
    min_players = 1
    max_players = 4
    duration_minutes = (15, 30)
    complexity = 3
    default_options = {"automa_difficulty": 1}
    option_labels = {"automa_difficulty": gettext_noop("Automa difficulty (solo games)")}
    option_choices = {
        "automa_difficulty": [
            (1, gettext_noop("easy")),
            (2, gettext_noop("medium")),
            (3, gettext_noop("hard")),
        ]
    }
    solo_opponent = gettext_noop("Automa")
    solo_level_option = "automa_difficulty"

    def __init__(self, cards: tuple[Card, ...] = CARDS) -> None:
        self.cards = cards
        self.catalogue = (*cards, STARTER)  # the starting cards have catalogue index len(cards)
        self._kind = tuple(card_kind(card) for card in self.catalogue)
        self.buildings = tuple(building_json(card) for card in self.catalogue)
        """Building sides as JSON, by catalogue index: templates for views, never handed out."""
        self.face_index = face_index(cards)
        self.tiers = {n: tier_of_position(cards, n) for n in SETUP}
        """The tier of every card id below the starting cards, by player count."""

    # -- setup --------------------------------------------------------------------------------

    def setup(
        self, num_players: int, seed: int, options: dict[str, Any] | None = None
    ) -> PointCityState:
        if not self.min_players <= num_players <= self.max_players:
            raise ValueError("Point City is for 1 to 4 players.")
        chosen = {**self.default_options, **(options or {})}
        difficulty = chosen["automa_difficulty"]
        if difficulty not in (1, 2, 3):
            raise ValueError("automa_difficulty must be 1, 2 or 3")
        rng = random.Random(seed)
        used, shown = SETUP[num_players]
        deck: list[int] = []
        removed: list[int] = []
        for tier in (1, 2, 3):
            indices = [i for i, card in enumerate(self.cards) if card.tier == tier]
            if len(indices) < used[tier - 1]:
                raise ValueError("the card list has too few cards of some tier")
            rng.shuffle(indices)
            deck += indices[: used[tier - 1]]
            removed += indices[used[tier - 1] :]
        tokens = list(range(len(TOKENS)))
        rng.shuffle(tokens)
        first = 0 if num_players == 1 else rng.randrange(num_players)
        n = len(self.cards)
        nobody = (0, 0, 0, 0, 0)
        return PointCityState(
            num_players=num_players,
            seed=seed,
            difficulty=difficulty,
            order=(*deck, *removed, *([n] * num_players)),
            deck_size=len(deck),
            next_card=CELLS,
            market=tuple(range(CELLS)),
            up=(False,) * CELLS,
            supply=tuple(tokens[:shown]),
            players=tuple(Player((n + s,), (), (), nobody) for s in range(num_players)),
            discard=(),
            current=first,
            phase=TAKE,
            flipped=False,
            pending=0,
            holes=(),
            turn=0,
            automa=Player((), (), (), nobody) if num_players == 1 else None,
            automa_at=(0, 0),
            log=({"type": "start", "seat": first},),
        )

    # -- queries ------------------------------------------------------------------------------

    def active_seats(self, state: PointCityState) -> list[int]:
        return [] if state.phase == OVER else [state.current]

    def legal_actions(self, state: PointCityState, seat: int) -> list[Action]:
        if state.phase == OVER or seat != state.current:
            return []
        if state.phase == CHOOSE:
            return [{"type": "token", "token": t} for t in state.supply]
        actions: list[Action] = []
        if not state.flipped:
            actions += [{"type": "flip", "cell": cell_json(c)} for c in self._flippable(state)]
        stock = self._stock_kinds(state)
        perm = state.players[state.current].perm
        cells = self._cells(state)
        for a, b in PAIRS:
            for pay in pair_payments(cells[a], cells[b], perm, stock):
                actions.append(
                    {"type": "take", "cells": [cell_json(a), cell_json(b)], "pay": pay_json(pay)}
                )
        if state.deck_count:
            actions.append({"type": "draw"})
        return actions or [{"type": "pass"}]

    def _flippable(self, state: PointCityState) -> list[int]:
        up = state.up
        cells: set[int] = set()
        for line in LINES:
            if not (up[line[0]] or up[line[1]] or up[line[2]] or up[line[3]]):
                cells.update(line)
        return sorted(cells)

    def _stock_kinds(self, state: PointCityState) -> tuple[int, ...]:
        """How many resource cards of each kind the current player holds."""
        have = [0] * 11
        kind, order = self._kind, state.order
        for card in state.players[state.current].stock:
            have[kind[order[card]]] += 1
        return tuple(have)

    def _cells(self, state: PointCityState) -> list[tuple[tuple[int, ...] | None, int]]:
        """Per market cell: the building's cost if its building side shows (else None), and
        the kind of resource card it is if its resource side shows (else -1)."""
        catalogue, kind, order, up = self.catalogue, self._kind, state.order, state.up
        cells: list[tuple[tuple[int, ...] | None, int]] = []
        for cell, card in enumerate(state.market):
            index = order[card]
            cells.append((catalogue[index].cost, -1) if up[cell] else (None, kind[index]))
        return cells

    def _payments(
        self, state: PointCityState, a: int, b: int, stock: tuple[int, ...]
    ) -> tuple[tuple[int, ...], ...]:
        """The offered payments for taking cells ``a`` and ``b``; empty if it is not possible."""
        cells = self._cells(state)
        return pair_payments(cells[a], cells[b], state.players[state.current].perm, stock)

    # -- apply --------------------------------------------------------------------------------

    def apply(self, state: PointCityState, seat: int, action: Action) -> PointCityState:
        self.check_turn(state, seat)
        if not isinstance(action, dict):
            raise IllegalAction(NOT_ALLOWED)
        kind = action.get("type")
        if state.phase == CHOOSE:
            if kind != "token" or set(action) != {"type", "token"}:
                raise IllegalAction(CHOOSE_TOKEN)
            token = action["token"]
            if type(token) is not int or token not in state.supply:
                raise IllegalAction(NO_TOKEN)
            return self._choose_token(state, token)
        if kind == "flip" and set(action) == {"type", "cell"}:
            return self._flip(state, _cell(action["cell"]))
        if kind == "take" and set(action) == {"type", "cells", "pay"}:
            return self._take(state, action)
        if kind == "draw" and set(action) == {"type"}:
            if not state.deck_count:
                raise IllegalAction(DECK_EMPTY)
            return self._draw(state)
        if kind == "pass" and set(action) == {"type"}:
            if self.legal_actions(state, seat) != [{"type": "pass"}]:
                raise IllegalAction(NOT_ALLOWED)
            events = ({"type": "pass", "seat": seat}, {"type": "end", "seat": None})
            return replace(state, phase=OVER, turn=state.turn + 1, log=(*state.log, *events))
        raise IllegalAction(NOT_ALLOWED)

    def _flip(self, state: PointCityState, cell: int | None) -> PointCityState:
        if cell is None:
            raise IllegalAction(NOT_ALLOWED)
        if state.flipped:
            raise IllegalAction(FLIPPED)
        if cell not in self._flippable(state):
            raise IllegalAction(NO_FLIP)
        event = {"type": "flip", "seat": state.current, "cell": cell_json(cell)}
        event["card"] = state.market[cell]
        up = list(state.up)
        up[cell] = True
        return replace(state, up=tuple(up), flipped=True, log=(*state.log, event))

    def _take(self, state: PointCityState, action: Action) -> PointCityState:
        cells = action["cells"]
        if not isinstance(cells, list) or len(cells) != 2:
            raise IllegalAction(NOT_ALLOWED)
        a, b = _cell(cells[0]), _cell(cells[1])
        if a is None or b is None:
            raise IllegalAction(NOT_ALLOWED)
        if (a, b) not in PAIRS:
            raise IllegalAction(NOT_ADJACENT)
        pay = pay_from_json(action["pay"])
        if pay is None or pay not in self._payments(state, a, b, self._stock_kinds(state)):
            raise IllegalAction(CANNOT_PAY)
        seat = state.current
        player = state.players[seat]
        order = state.order
        taken = [state.market[a], state.market[b]]
        built = [c for c, cell in zip(taken, (a, b), strict=True) if state.up[cell]]
        gained = [c for c, cell in zip(taken, (a, b), strict=True) if not state.up[cell]]
        spent: list[int] = []
        pool = gained + list(player.stock)  # a card taken now is spent before older ones
        for kind, count in enumerate(pay):
            if count:
                spent += [c for c in pool if self._kind[order[c]] == kind][:count]
        stock = tuple(c for c in (*player.stock, *gained) if c not in spent)
        city = (*player.city, *built)
        need = [0] * 5
        for card in built:
            for r, n in enumerate(self.catalogue[order[card]].cost):
                need[r] += n
        event = {
            "type": "take",
            "seat": seat,
            "cells": [cell_json(a), cell_json(b)],
            "cards": taken,
            "sides": ["building" if state.up[cell] else "resource" for cell in (a, b)],
            "pay": pay_json(pay),
            "permanent": {
                name: min(need[r], player.perm[r])
                for r, name in enumerate(RESOURCES)
                if min(need[r], player.perm[r])
            },
        }
        players = list(state.players)
        players[seat] = Player(
            stock, city, player.tokens, permanent(self.catalogue, (order[c] for c in city))
        )
        civics = sum(1 for c in built if self.catalogue[order[c]].kind == CIVIC)
        market = list(state.market)
        market[a] = market[b] = EMPTY
        new = replace(
            state,
            market=tuple(market),
            players=tuple(players),
            discard=(*state.discard, *spent),
            holes=((a, state.up[a]), (b, state.up[b])),
            pending=min(civics, len(state.supply)),
            log=(*state.log, event),
        )
        if new.pending:
            return replace(new, phase=CHOOSE)
        return self._finish(new)

    def _choose_token(self, state: PointCityState, token: int) -> PointCityState:
        seat = state.current
        player = state.players[seat]
        players = list(state.players)
        players[seat] = replace(player, tokens=(*player.tokens, token))
        new = replace(
            state,
            players=tuple(players),
            supply=tuple(t for t in state.supply if t != token),
            pending=state.pending - 1,
            log=(*state.log, {"type": "token", "seat": seat, "token": token}),
        )
        if new.pending and new.supply:
            return new
        return self._finish(replace(new, phase=TAKE, pending=0))

    def _draw(self, state: PointCityState) -> PointCityState:
        seat = state.current
        drawn = tuple(range(state.next_card, min(state.next_card + 2, state.deck_size)))
        players = list(state.players)
        player = players[seat]
        players[seat] = replace(player, stock=(*player.stock, *drawn))
        event = {"type": "draw", "seat": seat, "cards": list(drawn)}
        new = replace(state, next_card=state.next_card + len(drawn), players=tuple(players))
        return self._finish(new, event)

    def _finish(self, state: PointCityState, event: dict[str, Any] | None = None) -> PointCityState:
        """Ends the current turn: refill, then the next seat (or first the Automa) plays.

        ``refill`` counts the turn as played and ends the game when the pile cannot refill.
        """
        if event is not None:
            state = replace(state, log=(*state.log, event))
        state = refill(state, state.current)
        if state.phase == OVER:
            return state
        state = replace(
            state,
            current=(state.current + 1) % state.num_players,
            phase=TAKE,
            flipped=False,
            pending=0,
        )
        if state.automa is not None:
            state = automa_turn(self.catalogue, state)
        return state

    # -- results, views, JSON -----------------------------------------------------------------

    def scores(self, state: PointCityState) -> list[dict[str, Any]]:
        """Every seat's score breakdown as it stands."""
        return [score(self.catalogue, state.order, player) for player in state.players]

    def automa_score(self, state: PointCityState) -> dict[str, Any] | None:
        if state.automa is None:
            return None
        return automa_score(self.catalogue, state.order, state.automa, state.difficulty)

    def outcome(self, state: PointCityState) -> Outcome | None:
        if state.phase != OVER:
            return None
        breakdown = self.scores(state)
        totals = [b["total"] for b in breakdown]
        details: dict[str, Any] = {"breakdown": breakdown}
        if state.automa is not None:
            automa = self.automa_score(state)
            assert automa is not None
            won = totals[0] > automa["total"]  # section 9: only beating the Automa wins
            details |= {"automa": automa, "won": won, "stars": state.difficulty if won else 0}
            return solo_outcome(
                score=totals[0],
                won=won,
                level=state.difficulty,
                opponent_score=automa["total"],
                details=details,
            )
        ranks = ranks_from_scores([(b["total"], b["resource_cards"]) for b in breakdown])
        return Outcome(ranks=ranks, scores=totals, reason="score", details=details)

    def view(self, state: PointCityState, seat: int | None) -> PointCityView:
        return render_view(self, state, seat)

    def to_json(self, state: PointCityState) -> dict[str, Any]:
        return state_to_json(state)

    def from_json(self, data: dict[str, Any]) -> PointCityState:
        return state_from_json(data, lambda city: permanent(self.catalogue, city))

    def sample_state(self, view: PointCityView, seat: int, rng: random.Random) -> PointCityState:
        return sample(self, view, rng)
