"""Benchmarks of the rules and the bots; writes docs/benchmarks.md.

    make bench                      # the full run (what docs/benchmarks.md shows)
    .venv/bin/python bench/bots.py --games 20 --out /tmp/bench.md   # a quick look

Three parts, per game:
1. Rules speed: random full games per CPU second (``time.process_time``, so a busy
   machine does not make the rules look slower than they are).
2. The hard bot at its default budget (each game's ``GameBots.playouts``, capped by
   ``games.bots.base.HARD_BUDGET``'s seconds): playouts per
   CPU second, and the wall-clock time per move that a player waits.
3. Strength: the win rate of hard against greedy (medium) and of greedy against random
   over ``--games`` games, the measured bot in one seat and the other level in the rest,
   its seat rotated game by game. A shared first place counts as its share of a win.
   The hard bot plays these games with a fixed playout budget and no clock (``STRENGTH``
   below), so the figures do not depend on how busy the machine is.

It rewrites only its own section of docs/benchmarks.md, between two HTML comments.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import platform
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.sections import write_section  # noqa: E402
from games.bots.base import HARD_BUDGET, Bot  # noqa: E402
from games.catalog import get_bot, get_game  # noqa: E402
from games.rules import all_rules, get_rules  # noqa: E402
from games.rules.base import Rules  # noqa: E402

#: Player counts for the strength games: each game's usual table.
TABLE = {"district-noir": 2, "slide": 2, "gnav": 4, "point-city": 2}
#: The hard bot's playouts per move in the strength games (no clock).
#: (Gnav's hard bot has no budget: it weighs every deal its view allows.)
STRENGTH = {"district-noir": 150, "slide": 150, "point-city": 60}
RULES_SECONDS = 1.5  # CPU seconds of random games per game and player count
DECISIONS = 12  # hard-bot moves timed per game at the default budget


# -- 1. rules speed ---------------------------------------------------------------------------


def random_games_per_second(rules: Rules, num_players: int) -> tuple[float, float]:
    """Random full games, and their moves, per CPU second."""
    games = moves = 0
    started = time.process_time()
    while time.process_time() - started < RULES_SECONDS or games < 3:
        rng = random.Random(games)
        state = rules.setup(num_players, games)
        while rules.outcome(state) is None:
            seat = rng.choice(rules.active_seats(state))
            state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
            moves += 1
        games += 1
    spent = time.process_time() - started
    return games / spent, moves / spent


# -- 2. the hard bot at its default budget ----------------------------------------------------


@dataclass
class Timing:
    moves: int
    playouts_per_cpu_second: float
    playouts_per_move: float
    mean_seconds: float
    max_seconds: float


def time_hard_bot(slug: str) -> Timing:
    """Times the default hard bot on decisions drawn from games between greedy bots."""
    rules, n = get_rules(slug), TABLE[slug]
    greedy = get_bot("medium", slug)
    walls, playouts, cpu = [], 0, 0.0
    game = 0
    while len(walls) < DECISIONS:
        rng = random.Random(game)
        state = rules.setup(n, 500 + game)
        while rules.outcome(state) is None and len(walls) < DECISIONS:
            seat = rules.waiting_seats(state)[0]
            view = rules.view(state, seat)
            legal = view["legal_actions"]
            if len(legal) > 1 and rng.random() < 0.25:
                bot = get_bot("hard", slug)
                wall, clock = time.perf_counter(), time.process_time()
                action = bot.choose(view, legal, rng)
                walls.append(time.perf_counter() - wall)
                cpu += time.process_time() - clock
                playouts += bot.last_iterations  # type: ignore[attr-defined]
            else:
                action = greedy.choose(view, legal, rng)
            state = rules.apply(state, seat, action)
        game += 1
    return Timing(
        moves=len(walls),
        playouts_per_cpu_second=playouts / cpu,
        playouts_per_move=playouts / len(walls),
        mean_seconds=statistics.mean(walls),
        max_seconds=max(walls),
    )


# -- 3. strength ------------------------------------------------------------------------------


def strength_bot(level: str, slug: str) -> Bot:
    """The bot of ``level``; the hard one at the strength games' budget, with no clock."""
    bots = get_game(slug).bots
    if level == "hard" and bots is not None and slug in STRENGTH:
        return bots.hard(get_rules(slug), STRENGTH[slug], None)
    return get_bot(level, slug)


def play_one(job: tuple[str, str, str, int]) -> float:
    """One game: ``hero`` level in seat ``game % n``, ``other`` level elsewhere.

    Returns the hero's share of the win (1, 0, or 1/k for a first place shared by k).
    """
    slug, hero, other, game = job
    rules, n = get_rules(slug), TABLE[slug]
    seat_of_hero = game % n
    bots = [strength_bot(hero if s == seat_of_hero else other, slug) for s in range(n)]
    rng = random.Random(10_000 + game)
    state = rules.setup(n, 20_000 + game)
    while rules.outcome(state) is None:
        seat = rules.waiting_seats(state)[0]
        view = rules.view(state, seat)
        state = rules.apply(state, seat, bots[seat].choose(view, view["legal_actions"], rng))
    ranks = rules.outcome(state).ranks  # type: ignore[union-attr]
    return 1.0 / ranks.count(0) if ranks[seat_of_hero] == 0 else 0.0


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95%) of a win rate."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Duel:
    slug: str
    hero: str
    other: str
    games: int
    wins: float
    seconds: float

    @property
    def rate(self) -> float:
        return self.wins / self.games


def duel(pool: ProcessPoolExecutor, slug: str, hero: str, other: str, games: int) -> Duel:
    started = time.perf_counter()
    jobs = [(slug, hero, other, game) for game in range(games)]
    wins = sum(pool.map(play_one, jobs, chunksize=4))
    return Duel(slug, hero, other, games, wins, time.perf_counter() - started)


# -- the report -------------------------------------------------------------------------------


def report(args: argparse.Namespace) -> str:
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    lines = [
        "## Rules and bots",
        "",
        f"Made by `{args.command}` (`bench/bots.py`) on"
        f" {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC.",
        f"Machine: {os.cpu_count()} CPUs (nproc), Python {platform.python_version()}"
        f" on {platform.machine()} {platform.system()}; load average"
        f" {load_before:.1f} at the start (others were working on the machine too).",
        "",
        "### Rules: random full games per CPU second",
        "",
        "| game | players | games/s | moves/s |",
        "|---|---|---|---|",
    ]
    for rules in all_rules():
        for n in range(rules.min_players, rules.max_players + 1):
            per_game, per_move = random_games_per_second(rules, n)
            lines.append(f"| {rules.slug} | {n} | {per_game:,.0f} | {per_move:,.0f} |")
            print(lines[-1], flush=True)
    lines += [
        "",
        "### The hard bot at its default budget",
        "",
        f"Budget: the playouts below per move, stopped after {HARD_BUDGET.seconds} s of wall"
        " clock if not done. Gnav's hard bot has no budget: its playouts are the deals it"
        " weighs, every one its view allows. Timed on moves from games between greedy bots."
        " *Wait* is the wall-clock time a player waits for the move (on this busy machine).",
        "",
        "| game | players | playouts/move (budget) | playouts per CPU second"
        " | mean wait | longest wait |",
        "|---|---|---|---|---|---|",
    ]
    for slug in TABLE:
        t = time_hard_bot(slug)
        lines.append(
            f"| {slug} | {TABLE[slug]} | {t.playouts_per_move:.0f}"
            f" ({get_game(slug).bots.playouts or 'all'}) | {t.playouts_per_cpu_second:,.0f}"
            f" | {t.mean_seconds:.2f} s | {t.max_seconds:.2f} s |"
        )
        print(lines[-1], flush=True)
    lines += [
        "",
        f"### Strength over {args.games} games per pairing",
        "",
        "Win rate of the first level against the second, with the Wilson 95% interval. The"
        " first level sits in one seat, rotated game by game; the others are the second"
        " level. A first place shared by k seats counts as 1/k of a win. *Share* is a seat's"
        " fair share (1/players); *greedy vs greedy* shows what a seat really gets when"
        " every seat plays alike (in Gnav, drawn matches take some of it). For these games"
        " the hard bot has a fixed budget of playouts per move and no clock, smaller than"
        " its default:"
        f" {', '.join(f'{slug} {n}' for slug, n in STRENGTH.items())}; Gnav's needs none.",
        "",
        "| game | players | pairing | win rate | 95% interval | share | time |",
        "|---|---|---|---|---|---|---|",
    ]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for hero, other in (("medium", "random"), ("medium", "medium"), ("hard", "medium")):
            for slug in TABLE:
                d = duel(pool, slug, hero, other, args.games)
                low, high = wilson(d.wins, d.games)
                name = {"medium": "greedy"}.get
                lines.append(
                    f"| {slug} | {TABLE[slug]} | {name(hero, hero)} vs {name(other, other)}"
                    f" | {d.rate:.1%} | {low:.1%} to {high:.1%} | {1 / TABLE[slug]:.0%}"
                    f" | {d.seconds:.0f} s |"
                )
                print(lines[-1], flush=True)
    minutes = (time.perf_counter() - started) / 60
    lines += [
        "",
        f"The whole run took {minutes:.0f} minutes of wall clock; load average"
        f" {os.getloadavg()[0]:.1f} at the end.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per strength pairing")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    parser.add_argument("--command", default="make bench", help="the command to cite")
    args = parser.parse_args()
    write_section(Path(args.out), report(args), source="bench/bots.py")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
