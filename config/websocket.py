"""uvicorn's websocket protocol, with a deflate that an idle spectator's socket keeps nothing of.

uvicorn's own (``websockets-sansio``) agrees a 4 KB window each way and keeps one compressor
per socket between messages. A board's parts are 10-60 KB of HTML: through a 4 KB window a
Point City push came to 7 KB on the wire. A 32 KB window kept between messages reaches back
into the previous push (at most 4.7 KB), but its compressor holds about 150 KB a socket for as
long as the socket is open, idle or not (#31.4).

Here the window is 32 KB and the browser keeps it, but the server compresses a message on its
own (a fresh compressor, at zlib's best level, freed after it) for as long as that is within
``ALONE_LIMIT``: every message to a spectator, and every message of District Noir, Slide and
Gnav (at most 2.2 KB). Such a message is the same bytes whichever socket sends it, so the web
process compresses each distinct one once (``SharedPerMessageDeflate``): a push that gives a
thousand spectators the same public part compresses it once. The first message over the limit
(a Point City seat's turn: an interactive copy of the market, 30-60 KB raw) starts a compressor
that the socket then keeps, so that the next ones reach back into it: every message within
4.6 KB over the measured games (tests/games/boards/test_wire_size.py; ``bench/deflate.py``). A
server may always compress without referring to what it sent before: the browser's window
just holds history that is not used. What the browser sends (a move, a ping) is inflated on
its own (``client_no_context_takeover``): no decompressor is kept.
Served with ``uvicorn --ws config.websocket:WideWindowProtocol``.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol
from websockets.typing import ExtensionParameter

SERVER_WINDOW_BITS = 15  # what the server sends: each message within a 32 KB window
CLIENT_WINDOW_BITS = 12  # what the browser sends: small messages, 4 KB as uvicorn has it
COMPRESS_LEVEL, MEMORY_LEVEL = 9, 8  # per message: the best size, 113 µs a message
COMPRESS_SETTINGS = {"level": COMPRESS_LEVEL, "memLevel": MEMORY_LEVEL}
SYNC_FLUSH_END = b"\x00\x00\xff\xff"  # what a sync flush ends with; not sent (RFC 7692)
ALONE_LIMIT = 4000  # bytes: a message compressed alone to more starts the socket's own compressor
SHARED_MESSAGES = 128  # distinct messages kept compressed: a push's, across its tables
SHARED_MIN_BYTES = 1024  # below, compressing again costs less than keeping it


class _Compressed:
    """The process's compressed messages, by window and bytes: the ``SHARED_MESSAGES`` most
    recently sent (a browser may ask for a smaller window than ours: its own entries)."""

    def __init__(self) -> None:
        self._messages: OrderedDict[tuple[int, bytes], bytes] = OrderedDict()
        self.compressions = 0  # how many messages were compressed (for the tests and benches)

    def of(self, data: bytes, window_bits: int) -> bytes:
        key = (window_bits, data)
        compressed = self._messages.get(key)
        if compressed is not None:
            self._messages.move_to_end(key)
            return compressed
        compressed = compress(data, window_bits)
        self.compressions += 1
        if len(data) >= SHARED_MIN_BYTES:
            self._messages[key] = compressed
            while len(self._messages) > SHARED_MESSAGES:
                self._messages.popitem(last=False)
        return compressed

    def clear(self) -> None:
        self._messages.clear()


def compress(data: bytes, window_bits: int = SERVER_WINDOW_BITS) -> bytes:
    """``data`` as permessage-deflate sends a message compressed on its own."""
    compressor = zlib.compressobj(COMPRESS_LEVEL, zlib.DEFLATED, -window_bits, MEMORY_LEVEL)
    compressed = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    assert compressed.endswith(SYNC_FLUSH_END)
    return compressed[: -len(SYNC_FLUSH_END)]


# Sockets are served on one event loop per web process: no lock is needed around it.
compressed_messages = _Compressed()


class SharedPerMessageDeflate(PerMessageDeflate):
    """websockets' permessage-deflate, each message compressed alone (and once per process)
    while that fits ``ALONE_LIMIT``; after one that does not, with a compressor of its own."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.__dict__.pop("encoder", None)  # none until a message needs one (150 KB)
        self.kept: Any = None  # the socket's own compressor, once started

    def encode(self, frame: Frame) -> Frame:
        if frame.opcode not in (Opcode.TEXT, Opcode.BINARY, Opcode.CONT):
            return super().encode(frame)  # control frames: as websockets has them
        data = bytes(frame.data)
        whole = frame.fin and frame.opcode is not Opcode.CONT
        if self.kept is None and whole:
            alone = compressed_messages.of(data, self.local_max_window_bits)
            if len(alone) <= ALONE_LIMIT or self.local_no_context_takeover:  # as it asked
                return dataclasses.replace(frame, data=alone, rsv1=True)
        if self.kept is None:
            self.kept = zlib.compressobj(
                COMPRESS_LEVEL, zlib.DEFLATED, -self.local_max_window_bits, MEMORY_LEVEL
            )
        compressed = self.kept.compress(data) + self.kept.flush(zlib.Z_SYNC_FLUSH)
        if frame.fin:
            compressed = compressed[: -len(SYNC_FLUSH_END)]
        return dataclasses.replace(frame, data=compressed, rsv1=frame.opcode is not Opcode.CONT)


class SharedDeflateFactory(ServerPerMessageDeflateFactory):
    """Agrees permessage-deflate with a 32 KB window the browser keeps, and no context kept for
    what the browser sends (RFC 7692 lets the server ask for it), and gives the shared
    compressor."""

    def __init__(self) -> None:
        super().__init__(
            client_no_context_takeover=True,
            server_max_window_bits=SERVER_WINDOW_BITS,
            client_max_window_bits=CLIENT_WINDOW_BITS,
            compress_settings=COMPRESS_SETTINGS,
        )

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, extension = super().process_request_params(params, accepted_extensions)
        assert extension.remote_no_context_takeover
        shared = SharedPerMessageDeflate(
            remote_no_context_takeover=True,
            local_no_context_takeover=extension.local_no_context_takeover,
            remote_max_window_bits=extension.remote_max_window_bits,
            local_max_window_bits=extension.local_max_window_bits,
            compress_settings=COMPRESS_SETTINGS,
        )
        return response, shared


def deflate_factory() -> ServerPerMessageDeflateFactory:
    return SharedDeflateFactory()


class WideWindowProtocol(WebSocketsSansIOProtocol):
    """uvicorn's protocol, with only the negotiated deflate changed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn = ServerProtocol(
                extensions=[deflate_factory()],
                max_size=self.config.ws_max_size,
                logger=self.conn.logger,
            )
