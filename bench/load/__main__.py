"""The load bench's command line: ``.venv/bin/python -m bench.load --players 8,32 ...`` (from
the project's folder; ``make bench-load``). What it does: bench/load/__init__.py."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

import bench.load as package
from bench.load.peer import PEER_DIR, PEER_SOURCE
from bench.load.report import markdown
from bench.load.run import GAMES, main
from bench.sections import DOCS, write_section

SECTION = "bench/load"  # its section of docs/benchmarks.md: <!-- bench/load: start --> ...


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.load", description=package.__doc__.split("\n\n")[0]
    )
    parser.add_argument("--players", default="8,32,128", help="comma-separated N")
    parser.add_argument("--seconds", type=float, default=40, help="play time per N")
    parser.add_argument(
        "--games",
        default=",".join(game for game, _seats in GAMES),
        help="comma-separated games whose tables the players sit at (e.g. district-noir)",
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        help="seconds between a waiting page's polls (on average)",
    )
    parser.add_argument(
        "--think",
        type=float,
        default=0.0,
        help="seconds a player thinks before a move (on average)",
    )
    parser.add_argument(
        "--chat",
        type=float,
        default=0.0,
        help="seconds between one player's lines in the players' chat room, over the socket"
        " (on average; live pages only; 0: no chat)",
    )
    parser.add_argument("--server", choices=("uvicorn", "daphne"), default="uvicorn")
    parser.add_argument("--servers", type=int, default=2, help="server processes")
    parser.add_argument(
        "--ws",
        default="config.websocket:WideWindowProtocol",
        help="uvicorn's websocket implementation (the site's own, auto, websockets, ...)",
    )
    parser.add_argument(
        "--live",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="pages with their websocket open, moves over it (else HTTP posts and polls"
        " every --poll seconds)",
    )
    parser.add_argument(
        "--peer",
        action="store_true",
        help="also run the boardgame.io peer (District Noir: FlatFile, PostgreSQL, in memory)"
        " right after the phase nearest its client count, and print our rate's ratio to each",
    )
    parser.add_argument("--peer-matches", type=int, default=16, help="two clients each")
    parser.add_argument("--peer-source", default=str(PEER_SOURCE), help="the peer's files")
    parser.add_argument(
        "--peer-dir", default=str(PEER_DIR), help="scratch folder for its npm packages"
    )
    parser.add_argument("--pg-clients", type=int, default=8)
    parser.add_argument("--pg-seconds", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument(
        "--out",
        default=str(DOCS),
        help=f"the file whose '{SECTION}' section gets the figures ('' for none)",
    )
    parser.add_argument(
        "--no-write",
        action="store_true",
        help="write no file's section (a test run): the same as --out ''",
    )
    parser.add_argument("--keep-logs", action="store_true")
    parser.add_argument(
        "--fault",
        choices=("redis-pause", "redis-restart"),
        help="in the middle of each phase, pause the private Redis (SIGSTOP, then SIGCONT) or"
        " kill it and start it again empty; report what it cost",
    )
    parser.add_argument(
        "--fault-at", type=float, help="seconds into the phase (default: a third of it)"
    )
    parser.add_argument("--fault-seconds", type=float, default=15.0, help="how long it lasts")
    args = parser.parse_args()
    args.games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = set(args.games) - {game for game, _seats in GAMES}
    if unknown or not args.games:
        parser.error(f"--games: unknown {sorted(unknown)}; known: {[g for g, _s in GAMES]}")
    if args.no_write:
        args.out = ""
    return args


if __name__ == "__main__":
    arguments = parse_args()
    figures = asyncio.run(main(arguments))
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(figures, indent=2))
    if arguments.out:
        command = " ".join([".venv/bin/python -m bench.load", *sys.argv[1:]])
        write_section(Path(arguments.out), markdown(figures, command), source=SECTION)
        print(f"wrote {arguments.out}")
