"""A push, and a move's answer, stay within 5 KB on the wire for every game (#17, #31.4).

What a page is sent after a move: the public part, and its seat's private part when that
changed, compressed by permessage-deflate as the site's websocket protocol sends it
(config/websocket.py's extension itself, one a page): alone while that fits, so that an idle
spectator's socket keeps no compressor, and through the socket's own compressor after a message
too big alone. Played over seeded games, every seat's page and a spectator's, Point City also
at four seats (its turns' markets are the largest messages).
"""

from __future__ import annotations

import zlib

import pytest
from django.utils import translation
from websockets.frames import Frame, Opcode

from config import websocket
from tests.support.wire import page_messages

WIRE_LIMIT = 5000
MOVES = 60  # the first 60 moves of a game: its market, hands and logs at their fullest
SEATS = {"district-noir": 2, "slide": 3, "gnav": 4, "point-city": 2, "point-city-4": 4}
BROWSER_OFFER = [("client_max_window_bits", None)]  # Chromium's and Firefox's


def _site_deflate():
    """The server's end of a socket's permessage-deflate, as the site agrees it with a browser."""
    return websocket.deflate_factory().process_request_params(BROWSER_OFFER, [])[1]


def _kept_compressor(bits: int):
    """uvicorn's own: one compressor a socket, kept between messages, memLevel 5."""
    return zlib.compressobj(6, zlib.DEFLATED, -bits, 5)


def _wire_sizes(slug: str, seed: int, bits: int | None) -> list[int]:
    """The bytes on the wire of every message every page of a seeded game is sent: as the site
    sends them (``bits`` None), or through a compressor of ``bits`` kept by each socket."""
    sizes = []
    for messages in page_messages(slug.removesuffix("-4"), SEATS[slug], seed, MOVES):
        socket, compressor = _site_deflate(), _kept_compressor(bits) if bits else None
        for message in messages:
            if compressor is None:
                sizes.append(len(socket.encode(Frame(Opcode.TEXT, message)).data))
            else:
                sizes.append(
                    len(compressor.compress(message) + compressor.flush(zlib.Z_SYNC_FLUSH))
                )
    return sizes


@pytest.mark.parametrize("slug", sorted(SEATS))
def test_every_message_of_a_game_fits_in_5_kb_on_the_wire(slug):
    with translation.override("en"):
        sizes = [size for seed in range(2) for size in _wire_sizes(slug, seed, None)]
    assert len(sizes) > 20
    assert max(sizes) <= WIRE_LIMIT, f"{sum(s > WIRE_LIMIT for s in sizes)} messages over 5 KB"


def test_uvicorns_own_4_kb_window_would_not_do_for_point_city():
    """Why the site agrees a wider window than uvicorn's: the measurement above, at 4 KB."""
    with translation.override("en"):
        sizes = _wire_sizes("point-city", 0, 12)
    assert max(sizes) > WIRE_LIMIT
