"""uvicorn's websocket protocol with a 32 KB deflate window for what the server sends.

uvicorn's own (``websockets-sansio``) agrees a 4 KB window each way, to keep a socket's
memory small. A board's parts are 10-40 KB of HTML, so with 4 KB the compressor cannot
reach back into the previous push, and a Point City push with the seat's private part came
to 7 KB on the wire. With 32 KB it reaches the whole previous push: at most 3.1 KB
(tests/games/boards/test_wire_size.py; docs/benchmarks.md). The cost is the compressor's memory,
about 144 KB a socket instead of 32 KB; what the browser sends (a move, a ping) stays on a
4 KB window. Served with ``uvicorn --ws config.websocket:WideWindowProtocol``.
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

SERVER_WINDOW_BITS = 15  # what the server sends: 32 KB of history
CLIENT_WINDOW_BITS = 12  # what the browser sends: small messages, 4 KB as uvicorn has it
MEMORY_LEVEL = 5  # as uvicorn has it


def deflate_factory() -> ServerPerMessageDeflateFactory:
    return ServerPerMessageDeflateFactory(
        server_max_window_bits=SERVER_WINDOW_BITS,
        client_max_window_bits=CLIENT_WINDOW_BITS,
        compress_settings={"memLevel": MEMORY_LEVEL},
    )


class WideWindowProtocol(WebSocketsSansIOProtocol):
    """uvicorn's protocol, with only the negotiated deflate window changed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.ws_per_message_deflate:
            self.conn = ServerProtocol(
                extensions=[deflate_factory()],
                max_size=self.config.ws_max_size,
                logger=self.conn.logger,
            )
