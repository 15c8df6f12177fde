"""What permessage-deflate settings cost an open page, and what they send (#31.4).

Every message every page of a seeded game is sent by its socket (the public part, and the
seat's private part when it changed: what ``games.live.consumers`` sends), over four whole
games of each game (Point City at two and four seats), every seat's page and a spectator's,
compressed as the server's side of permessage-deflate would with each setting:

- with context takeover (one compressor per socket, kept between messages: the window reaches
  back into the previous push), at several window sizes and memory levels;
- without (``server_no_context_takeover``: a compressor per message, freed after it; an idle
  socket keeps none);
- as the site does (``config/websocket.py``): alone while that fits 4 KB, and through a
  compressor the socket keeps from its first message that does not.

For each it reports the largest message and the p95 on the wire, the compressor's memory an
idle socket keeps (zlib's own formula: ``2**(windowBits+2) + 2**(memLevel+9)`` bytes, plus its
fixed 5.8 KB), and the CPU to compress a message. In process, no server.

    .venv/bin/python bench/deflate.py             # (part of make bench)
    .venv/bin/python bench/deflate.py --no-write
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.django_setup import setup_django

setup_django("deflate")

from django.utils import translation  # noqa: E402
from websockets.frames import Frame, Opcode  # noqa: E402

from bench.load.stats import percentile  # noqa: E402
from bench.sections import DOCS, write_section  # noqa: E402
from config import websocket  # noqa: E402
from tests.support.wire import page_messages  # noqa: E402

SECTION = "bench/deflate.py"
MOVES = 400  # whole games
SEEDS = 4
# Point City also at four seats: its turns' markets are the largest messages.
SEATS = {"district-noir": 2, "slide": 3, "gnav": 4, "point-city": 2, "point-city-4": 4}
BROWSER_OFFER = [("client_max_window_bits", None)]  # what Chromium and Firefox offer
ZLIB_FIXED = 5_816  # zlib's deflate_state itself, beside its window and hash tables
WIRE_LIMIT = 5_000


@dataclass(frozen=True)
class Setting:
    name: str
    window_bits: int
    memory_level: int
    context_takeover: bool
    level: int = 6

    @property
    def idle_bytes(self) -> int:
        if not self.context_takeover:
            return 0
        return ZLIB_FIXED + 2 ** (self.window_bits + 2) + 2 ** (self.memory_level + 9)


SETTINGS = [
    Setting("today: 32 KB window, memLevel 5, kept", 15, 5, True),
    Setting("16 KB window, memLevel 5, kept", 14, 5, True),
    Setting("8 KB window, memLevel 4, kept", 13, 4, True),
    Setting("4 KB window (uvicorn's), memLevel 5, kept", 12, 5, True),
    Setting("32 KB window, memLevel 8, per message", 15, 8, False),
    Setting("32 KB window, memLevel 5, per message", 15, 5, False),
    Setting("32 KB window, memLevel 8, level 9, per message", 15, 8, False, 9),
    Setting("32 KB window, memLevel 9, level 9, per message", 15, 9, False, 9),
    Setting("16 KB window, memLevel 8, per message", 14, 8, False),
]


def compressed_sizes(pages: list[list[bytes]], setting: Setting) -> tuple[list[int], float]:
    """The wire size of every message, and the CPU seconds it took to compress them all."""
    sizes: list[int] = []
    started = time.process_time()
    for messages in pages:
        compressor = None
        for message in messages:
            if compressor is None or not setting.context_takeover:
                compressor = zlib.compressobj(
                    setting.level, zlib.DEFLATED, -setting.window_bits, setting.memory_level
                )
            data = compressor.compress(message) + compressor.flush(zlib.Z_SYNC_FLUSH)
            sizes.append(len(data) - 4)  # the sync flush's 00 00 ff ff is not sent
    return sizes, time.process_time() - started


def site_sizes(pages: list[list[bytes]]) -> tuple[list[int], float, int]:
    """As the site sends them (config/websocket.py's extension, one a page): the wire sizes,
    the CPU seconds, and how many pages ended with a compressor of their own."""
    websocket.compressed_messages.clear()
    sizes: list[int] = []
    kept = 0
    started = time.process_time()
    for messages in pages:
        socket = websocket.deflate_factory().process_request_params(BROWSER_OFFER, [])[1]
        for message in messages:
            sizes.append(len(socket.encode(Frame(Opcode.TEXT, message)).data))
        kept += socket.kept is not None
    return sizes, time.process_time() - started, kept


def measure() -> list[dict]:
    with translation.override("en"):
        pages = [
            page
            for slug in SEATS
            for seed in range(SEEDS)
            for page in page_messages(slug.removesuffix("-4"), SEATS[slug], seed, MOVES)
        ]
    count = sum(len(messages) for messages in pages)
    raw = sorted(len(message) for messages in pages for message in messages)
    print(f"{count} messages, raw p95 {percentile(raw, 95) / 1000:.1f} KB, max {raw[-1]} B")
    rows = []
    for setting in SETTINGS:
        sizes, seconds = compressed_sizes(pages, setting)
        sizes.sort()
        row = {
            "setting": setting.name,
            "max": sizes[-1],
            "p95": percentile(sizes, 95),
            "over": sum(size > WIRE_LIMIT for size in sizes),
            "idle_kb": setting.idle_bytes / 1024,
            "us": seconds / len(sizes) * 1e6,
        }
        print(
            f"{row['setting']:45} max {row['max']:6} B  p95 {row['p95']:7.0f} B  over 5 KB"
            f" {row['over']:4}  idle {row['idle_kb']:6.1f} KB  {row['us']:5.0f} µs a message"
        )
        rows.append(row)
    sizes, seconds, kept = site_sizes(pages)
    sizes.sort()
    row = {
        "setting": f"the site: alone while within {websocket.ALONE_LIMIT:,} B, then kept",
        "max": sizes[-1],
        "p95": percentile(sizes, 95),
        "over": sum(size > WIRE_LIMIT for size in sizes),
        "idle_kb": kept
        * Setting("", 15, websocket.MEMORY_LEVEL, True).idle_bytes
        / len(pages)
        / 1024,
        "us": seconds / len(sizes) * 1e6,
        "kept": f"{kept} of {len(pages)} pages keep one",
    }
    print(
        f"{row['setting']:45} max {row['max']:6} B  p95 {row['p95']:7.0f} B  over 5 KB"
        f" {row['over']:4}  idle {row['idle_kb']:6.1f} KB a page on average ({row['kept']})"
        f"  {row['us']:5.0f} µs a message (each distinct one compressed once)"
    )
    rows.append(row)
    return rows


def markdown(rows: list[dict], command: str) -> str:
    lines = [
        "### What a socket's compressor costs (bench/deflate.py)",
        "",
        f"`{command}`: every message of {SEEDS} seeded whole games of each game (Point City at",
        "two and four seats), to every seat's page and a spectator's, compressed as the server's",
        "side of permessage-deflate would. Idle: what the compressor keeps between messages",
        "(zlib's formula; for the site's, the average over the pages, of which only Point",
        "City's seats keep one); CPU: to compress one message, this machine (the site compresses",
        "a message sent alone once per web process, however many pages it goes to).",
        "",
        "| setting | largest message | p95 | over 5 KB | idle per socket | CPU a message |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['setting']} | {row['max']:,} B | {row['p95']:,.0f} B | {row['over']} |"
            f" {row['idle_kb']:.1f} KB | {row['us']:.0f} µs |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    rows = measure()
    if not args.no_write:
        write_section(DOCS, markdown(rows, ".venv/bin/python bench/deflate.py"), SECTION)
        print(f"written to {DOCS}")


if __name__ == "__main__":
    main()
