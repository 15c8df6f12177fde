"""How long a Swiss round takes to pair (tournaments/pairing/swiss.py). A bench, not a test.

For each size, a tournament of that many players (seeded ratings) plays five rounds paired
by ``pair_swiss`` itself, with random results (a draw one game in five); then the sixth
round is paired ``--runs`` times from the same histories, and the p50 and the max of those
times are reported (building the histories from the games included, as a service would).
The aim: 256 players in at most 1 s.

    .venv/bin/python bench/pairing.py                 # (part of make bench)
    .venv/bin/python bench/pairing.py --sizes 256 --runs 9 --no-write

It writes its table into docs/benchmarks.md, between its own markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.sections import write_section  # noqa: E402
from tournaments.pairing.history import Bye, Game, build_histories  # noqa: E402
from tournaments.pairing.swiss import DENSE_LIMIT, pair_swiss  # noqa: E402


def tournament(size: int, rounds: int, seed: int) -> tuple[dict[int, float], list[Game], list[Bye]]:
    """``rounds`` rounds of random results among ``size`` players, paired by pair_swiss."""
    rng = random.Random(seed)
    ratings = {player: rng.gauss(1500, 200) for player in range(1, size + 1)}
    games: list[Game] = []
    byes: list[Bye] = []
    for number in range(rounds):
        paired = pair_swiss(list(build_histories(ratings, games, byes).values()))
        for table in paired.tables:
            score = rng.choice((0, 0, 0.5, 1, 1))
            games.append(Game.two_player(number, *table.seats, score))
        byes += [Bye(number, player) for player in paired.byes]
    return ratings, games, byes


def time_round(ratings: dict[int, float], games: list[Game], byes: list[Bye]) -> float:
    started = time.perf_counter()
    pair_swiss(list(build_histories(ratings, games, byes).values()))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="64,128,255,256")
    parser.add_argument("--rounds", type=int, default=5, help="rounds played before the timed one")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    command = " ".join(["bench/pairing.py", *sys.argv[1:]])
    lines = [
        "### Swiss pairing time (written by `bench/pairing.py`)",
        "",
        f"`.venv/bin/python {command}` on {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC,"
        f" {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} before."
        f" The round after {args.rounds} rounds of random results, paired {args.runs} times"
        f" (histories built from the games included); up to {DENSE_LIMIT} players every"
        " pair is an edge, above it the sparse graph.",
        "",
        "| players | p50 s | max s |",
        "|---|---|---|",
    ]
    for size in (int(s) for s in args.sizes.split(",")):
        ratings, games, byes = tournament(size, args.rounds, args.seed)
        times = [time_round(ratings, games, byes) for _ in range(args.runs)]
        lines.append(f"| {size} | {statistics.median(times):.3f} | {max(times):.3f} |")
        print(lines[-1], flush=True)
    lines += ["", f"Load average {os.getloadavg()[0]:.1f} after."]
    if not args.no_write:
        write_section(Path(args.out), "\n".join(lines), "bench/pairing.py")


if __name__ == "__main__":
    main()
