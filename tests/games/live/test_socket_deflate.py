"""The table socket's permessage-deflate (config/websocket.py, #31.4): a message compressed on its
own while that fits 4 KB, so that an idle spectator's socket keeps no compressor (150 KB a socket
before), each distinct one compressed once per web process whichever sockets send it; a socket
sent a message too big alone keeps a compressor from then on, and reaches back into it."""

from __future__ import annotations

import zlib

from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode

from config import websocket

# What Chromium offers (and Firefox): its own window left to the server.
BROWSER_OFFER = [("client_max_window_bits", None)]
BOARD = ("<div id='board-public'>" + "<li class='card'>7 of hearts</li>" * 900 + "</div>").encode()


def _socket(offer=BROWSER_OFFER):
    """The server's and the browser's ends of one socket's deflate, as agreed."""
    answer, server = websocket.deflate_factory().process_request_params(offer, [])
    browser = ClientPerMessageDeflateFactory(client_max_window_bits=True)
    return answer, server, browser.process_response_params(answer, [])


def test_a_browser_keeps_a_32_kb_window_and_sends_without_context_takeover():
    answer, server, _browser = _socket()
    assert dict(answer) == {
        "client_no_context_takeover": None,
        "server_max_window_bits": "15",
        "client_max_window_bits": "12",
    }
    assert server.remote_no_context_takeover and not server.local_no_context_takeover


def test_pages_sent_the_same_message_share_one_compression_and_each_can_read_it():
    websocket.compressed_messages.clear()
    before = websocket.compressed_messages.compressions
    ends = [_socket() for _ in range(3)]
    for _answer, server, browser in ends:
        for _push in range(2):
            frame = server.encode(Frame(Opcode.TEXT, BOARD))
            assert frame.rsv1, "sent compressed"
            assert len(frame.data) < len(BOARD) / 20
            assert browser.decode(frame).data == BOARD
            # A fresh inflater reads it: nothing of an earlier message is needed.
            assert zlib.decompressobj(-15).decompress(frame.data + b"\x00\x00\xff\xff") == BOARD
    assert websocket.compressed_messages.compressions - before == 1


def test_an_idle_socket_keeps_no_compressor_and_no_decompressor():
    _answer, server, browser = _socket()
    server.decode(browser.encode(Frame(Opcode.TEXT, b'{"action": {"type": "pass"}, "version": 3}')))
    server.encode(Frame(Opcode.TEXT, BOARD))
    assert not hasattr(server, "encoder") and not hasattr(server, "decoder")


def test_a_browser_that_asks_for_a_smaller_window_gets_messages_it_can_read():
    offer = [("server_max_window_bits", "10"), ("client_max_window_bits", None)]
    answer, server, browser = _socket(offer)
    assert dict(answer)["server_max_window_bits"] == "10"
    frame = server.encode(Frame(Opcode.TEXT, BOARD))
    assert zlib.decompressobj(-10).decompress(frame.data + b"\x00\x00\xff\xff") == BOARD
    assert browser.decode(frame).data == BOARD


def test_control_frames_and_small_messages_pass_as_websockets_has_them():
    _answer, server, browser = _socket()
    ping = server.encode(Frame(Opcode.PING, b"hi"))
    assert ping.data == b"hi" and not ping.rsv1
    small = server.encode(Frame(Opcode.TEXT, b"<div id='board-message'></div>"))
    assert browser.decode(small).data == b"<div id='board-message'></div>"


def _market(seed: int) -> bytes:
    """A Point City seat's turn, in miniature: 24 KB of offers that compress badly alone."""
    import random

    rng = random.Random(seed)
    offers = "".join(
        f"<button data-pay='{rng.getrandbits(64):x}-{rng.getrandbits(64):x}'>{n}</button>"
        for n in range(400)
    )
    return f"<div id='board-private'>{offers}</div>".encode()


def test_a_socket_sent_a_message_too_big_alone_keeps_a_compressor_and_reaches_back():
    _answer, server, browser = _socket()
    market = _market(1)
    first = server.encode(Frame(Opcode.TEXT, market))
    assert len(first.data) > websocket.ALONE_LIMIT and server.kept is not None
    again = server.encode(Frame(Opcode.TEXT, market + b"<p>your turn</p>"))
    assert len(again.data) < len(first.data) / 10, "the second reaches back into the first"
    spectators_board = server.encode(Frame(Opcode.TEXT, BOARD))
    for frame, sent in [
        (first, market),
        (again, market + b"<p>your turn</p>"),
        (spectators_board, BOARD),
    ]:
        assert browser.decode(frame).data == sent


def test_a_browser_that_asks_for_no_context_takeover_gets_every_message_alone():
    offer = [("server_no_context_takeover", None), ("client_max_window_bits", None)]
    answer, server, _browser = _socket(offer)
    assert "server_no_context_takeover" in dict(answer)
    market = _market(2)
    for _push in range(2):
        frame = server.encode(Frame(Opcode.TEXT, market))
        assert zlib.decompressobj(-15).decompress(frame.data + b"\x00\x00\xff\xff") == market
    assert server.kept is None
