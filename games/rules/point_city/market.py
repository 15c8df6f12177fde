"""The market at the end of a turn: the refill (§3.5) and the solo Automa (§9)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from games.rules.point_city.cards import CIVIC, Card
from games.rules.point_city.scoring import permanent
from games.rules.point_city.state import EMPTY, OVER, SIZE, Player, PointCityState, cell_json


def refill(state: PointCityState, seat: int | None) -> PointCityState:
    """Fills this turn's holes in reading order, each with the opposite side up to the card
    taken from it (§3.5). If the draw pile runs out first, the game is over."""
    market, up = list(state.market), list(state.up)
    next_card = state.next_card
    cells, cards, sides = [], [], []
    holes = sorted(state.holes)
    for cell, was_building in holes:
        if next_card == state.deck_size:
            break
        market[cell], up[cell] = next_card, not was_building
        cells.append(cell_json(cell))
        cards.append(next_card)
        sides.append("resource" if was_building else "building")
        next_card += 1
    log = state.log
    if cards:
        event = {"type": "refill", "seat": seat, "cells": cells, "cards": cards, "sides": sides}
        log = (*log, event)
    if len(cards) < len(holes):
        log = (*log, {"type": "end", "seat": None})
    return replace(
        state,
        market=tuple(market),
        up=tuple(up),
        next_card=next_card,
        holes=(),
        phase=OVER if len(cards) < len(holes) else state.phase,
        turn=state.turn + 1,
        log=log,
    )


def automa_turn(catalogue: Sequence[Card], state: PointCityState) -> PointCityState:
    """§9: the card where the tokens cross and the one below it (wrapping)."""
    row, col = state.automa_at
    cells = sorted((row * SIZE + col, (row + 1) % SIZE * SIZE + col))
    automa = state.automa
    assert automa is not None
    order = state.order
    stock, city, tokens = list(automa.stock), list(automa.city), list(automa.tokens)
    supply = list(state.supply)
    taken_tokens = []
    for cell in cells:
        card = state.market[cell]
        if not state.up[cell]:
            stock.append(card)
            continue
        city.append(card)
        if catalogue[order[card]].kind == CIVIC and supply:
            taken_tokens.append(supply.pop(0))
    tokens += taken_tokens
    market = list(state.market)
    for cell in cells:
        market[cell] = EMPTY
    event = {
        "type": "automa",
        "seat": None,
        "cells": [cell_json(c) for c in cells],
        "cards": [state.market[c] for c in cells],
        "sides": ["building" if state.up[c] else "resource" for c in cells],
        "tokens": taken_tokens,
    }
    new = replace(
        state,
        automa=Player(
            tuple(stock),
            tuple(city),
            tuple(tokens),
            permanent(catalogue, (order[c] for c in city)),
        ),
        supply=tuple(supply),
        market=tuple(market),
        holes=tuple((c, state.up[c]) for c in cells),
        automa_at=((row + 1) % SIZE, (col + 1) % SIZE),
        log=(*state.log, event),
    )
    return refill(new, None)
