"""A push, and a move's answer, stay within 5 KB on the wire for every game (#17).

What a page is sent after a move: the public part, and its seat's private part when that
changed, compressed by permessage-deflate with the window the site's websocket protocol
agrees (config/websocket.py), one compressor per socket kept across messages, as the
socket keeps it. Played over seeded games, every seat's page and a spectator's.
"""

from __future__ import annotations

import random
import zlib

import pytest
from django.utils import translation

from config.websocket import MEMORY_LEVEL, SERVER_WINDOW_BITS
from games import boards
from games.models import Table
from games.rules import get_rules

WIRE_LIMIT = 5000
MOVES = 60  # the first 60 moves of a game: its market, hands and logs at their fullest
SEATS = {"district-noir": 2, "slide": 3, "gnav": 4, "point-city": 2}


def _socket_compressor(bits: int):
    return zlib.compressobj(6, zlib.DEFLATED, -bits, MEMORY_LEVEL)


def _wire_sizes(slug: str, seed: int, bits: int) -> list[int]:
    """The bytes on the wire of every message every page of a seeded game is sent."""
    rules = get_rules(slug)
    seats = SEATS[slug]
    rng = random.Random(seed)
    state = rules.setup(seats, seed)
    table = Table(
        pk=900_000 + seed,
        game=slug,
        num_seats=seats,
        status=Table.Status.RUNNING,
        version=1,
        invite_code="wire",
        seconds_per_move=86400,
    )
    names = [f"player {n}" for n in range(seats)]
    pages = [*range(seats), None]  # every seat's page, and a spectator's
    compressors = {page: _socket_compressor(bits) for page in pages}
    sent_private = dict.fromkeys(pages, "")
    sizes = []
    for _move in range(MOVES):
        if rules.outcome(state) is not None:
            break
        table.state = rules.to_json(state)
        table.version += 1
        public = boards.public_part(table, [], state=state)
        for page in pages:
            private, _digest, _my_turn = boards.private_part(
                table, boards.Audience(page, None), names, state=state, public_log=public.log_digest
            )
            message = public.html + (private if private != sent_private[page] else "")
            sent_private[page] = private
            compressor = compressors[page]
            sizes.append(
                len(compressor.compress(message.encode()) + compressor.flush(zlib.Z_SYNC_FLUSH))
            )
        seat = rules.active_seats(state)[0]
        state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
    return sizes


@pytest.mark.parametrize("slug", sorted(SEATS))
def test_every_message_of_a_game_fits_in_5_kb_on_the_wire(slug):
    with translation.override("en"):
        sizes = [size for seed in range(2) for size in _wire_sizes(slug, seed, SERVER_WINDOW_BITS)]
    assert len(sizes) > 20
    assert max(sizes) <= WIRE_LIMIT, f"{sum(s > WIRE_LIMIT for s in sizes)} messages over 5 KB"


def test_uvicorns_own_4_kb_window_would_not_do_for_point_city():
    """Why the site agrees a wider window than uvicorn's: the measurement above, at 4 KB."""
    with translation.override("en"):
        sizes = _wire_sizes("point-city", 0, 12)
    assert max(sizes) > WIRE_LIMIT
