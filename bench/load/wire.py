"""What came over the wire: the bytes of each websocket message as its frames arrived (before
permessage-deflate undoes them), a message's size deflated on its own (the bound without
context takeover), and the bytes of a table page's first load with everything it fetches."""

from __future__ import annotations

import re
import zlib
from collections import deque
from typing import Any

import httpx
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import CTRL_OPCODES, Frame


def deflated_size(data: bytes, window_bits: int = 15) -> int:
    """The payload permessage-deflate sends for ``data`` without context takeover (RFC 7692:
    raw deflate, flushed, its ``00 00 ff ff`` tail left off), with the server's window: an
    upper bound of the payload of one message (context takeover only makes it smaller)."""
    # memLevel 5: what uvicorn's websockets server compresses with
    packer = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -window_bits, 5)
    packed = packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH)
    return len(packed) - 4 if packed.endswith(b"\x00\x00\xff\xff") else len(packed)


def frame_header(payload: int) -> int:
    """Bytes of the header of a frame the server sends (unmasked) with ``payload`` bytes."""
    return 2 + (2 if payload > 125 else 0) + (6 if payload > 65535 else 0)


class WireCount:
    """The bytes of each message a socket received, as they came over the wire: the frames'
    payloads before permessage-deflate undoes them, and their headers."""

    def __init__(self) -> None:
        self.window_bits: int | None = None  # the server's window, once deflate is agreed
        self.partial = 0
        self.messages: deque[int] = deque()

    def frame(self, frame: Frame) -> None:
        if frame.opcode in CTRL_OPCODES:
            return
        self.partial += len(frame.data) + frame_header(len(frame.data))
        if frame.fin:
            self.messages.append(self.partial)
            self.partial = 0

    def next(self) -> int | None:
        """The wire bytes of the next message ``recv`` returns (they come in order)."""
        return self.messages.popleft() if self.messages else None


class CountedDeflate(Extension):
    """permessage-deflate as agreed, counting each received frame before it is inflated."""

    def __init__(self, inner: Extension, count: WireCount) -> None:
        self.inner, self.count, self.name = inner, count, inner.name

    def decode(self, frame: Frame, *, max_size: int | None = None) -> Frame:
        self.count.frame(frame)
        return self.inner.decode(frame, max_size=max_size)

    def encode(self, frame: Frame) -> Frame:
        return self.inner.encode(frame)


class CountingDeflateFactory(ClientPerMessageDeflateFactory):
    """The offer websockets makes by default (as browsers do: permessage-deflate), its
    agreed extension wrapped to count the wire's bytes."""

    def __init__(self, count: WireCount) -> None:
        super().__init__(compress_settings={"memLevel": 5})  # websockets' default offer
        self.count = count

    def process_response_params(self, params: Any, accepted_extensions: Any) -> Extension:
        inner = super().process_response_params(params, accepted_extensions)
        self.count.window_bits = getattr(inner, "remote_max_window_bits", None) or 15
        return CountedDeflate(inner, self.count)


ASSET = re.compile(r'<(?:link[^>]+rel="stylesheet"[^>]+href|script[^>]+src)="([^"]+)"')
CSS_URL = re.compile(r"url\(['\"]?([^'\")]+)['\"]?\)")


async def first_load(base: str, cookies: httpx.Cookies, table_id: int) -> dict[str, int]:
    """Bytes of a table page's first load at ``base``, signed in with ``cookies``: the HTML and
    every stylesheet, script and image."""
    client = httpx.AsyncClient(
        base_url=base,
        cookies=cookies,
        timeout=60,
        headers={"Accept-Encoding": "gzip"},
    )
    try:
        page = await client.get(f"/t/{table_id}/")
        if page.status_code != 200:
            return {"files": 0, "wire_bytes": 0, "raw_bytes": 0, "html_bytes": 0}
        wire, raw, count = page.num_bytes_downloaded, len(page.content), 1
        urls = list(dict.fromkeys(ASSET.findall(page.text)))
        seen: set[str] = set()
        while urls:
            url = urls.pop(0)
            if url in seen or url.startswith(("http:", "https:", "data:")):
                continue
            seen.add(url)
            response = await client.get(url)
            wire += response.num_bytes_downloaded
            raw += len(response.content)
            count += 1
            if url.endswith(".css"):
                base = url.rsplit("/", 1)[0]
                for ref in CSS_URL.findall(response.text):
                    ref = ref.strip()
                    if not ref.startswith(("data:", "#", "%23")):
                        urls.append(ref if ref.startswith("/") else f"{base}/{ref}")
        return {
            "files": count,
            "wire_bytes": wire,
            "raw_bytes": raw,
            "html_bytes": len(page.content),
        }
    finally:
        await client.aclose()
