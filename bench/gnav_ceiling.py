"""How much better than the greedy bot can anyone play Gnav? A bench, not a test.

A Gnav seat decides once per deal (keep, or ask) and every deal is shuffled afresh,
so luck weighs heavily. This measures, against three greedy bots (``GnavBot``) with
the hero's seat rotated, on the same seeds as ``bench/bots.py``:

- greedy in the hero's seat (the baseline: a fair seat's real share, draws included);
- the hard bot (``GnavExactBot``): the best reply to greedy play that a seat's view
  allows within a deal, worked out over every deal the view allows, not sampled;
- an oracle that CHEATS: it sees every hand and the stock of the current deal and
  plays the action whose deal, finished by greedy players, leaves it the best chance
  to win the match. It bounds what any bot could gain within a deal.

    .venv/bin/python bench/gnav_ceiling.py --games 1000     # (part of make bench)

It writes its table into docs/benchmarks.md, between its own markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")

import django  # noqa: E402

django.setup()

from bench.bots import wilson  # noqa: E402
from bench.sections import write_section  # noqa: E402
from games.bots.gnav import GnavBot, deal_value  # noqa: E402
from games.bots.gnav_exact import GnavExactBot  # noqa: E402
from games.rules import get_rules  # noqa: E402
from games.rules.base import Action, State  # noqa: E402

GNAV = get_rules("gnav")
SEATS = 4
GREEDY = GnavBot()
HARD = GnavExactBot()
#: A hero's move: (the full state, which only the oracle reads; its seat's view) -> action.
Hero = Callable[[State, dict, random.Random], Action]


def greedy_hero(state: State, view: dict, rng: random.Random) -> Action:
    return GREEDY.choose(view, view["legal_actions"], rng)


def hard_hero(state: State, view: dict, rng: random.Random) -> Action:
    return HARD.choose(view, view["legal_actions"], rng)


def oracle_hero(state: State, view: dict, rng: random.Random) -> Action:
    """Cheats: plays each action in the real state and keeps the best deal's end."""
    me = view["seat"]
    first = GREEDY.choose(view, view["legal_actions"], rng)
    actions = [first] + [a for a in view["legal_actions"] if a != first]
    return max(
        actions, key=lambda a: deal_value(GNAV, GNAV.apply(state, me, a), me, view["deal"], rng)
    )


def play(hero: Hero, game: int) -> float:
    """One match, the hero in seat ``game % 4``: its share of the win (as bench/bots.py)."""
    hero_seat = game % SEATS
    rng = random.Random(10_000 + game)
    state = GNAV.setup(SEATS, 20_000 + game)
    while (outcome := GNAV.outcome(state)) is None:
        seat = GNAV.waiting_seats(state)[0]
        view = GNAV.view(state, seat)
        if seat == hero_seat:
            action = hero(state, view, rng)
        else:
            action = GREEDY.choose(view, view["legal_actions"], rng)
        state = GNAV.apply(state, seat, action)
    return 1.0 / outcome.ranks.count(0) if outcome.ranks[hero_seat] == 0 else 0.0


HEROES: dict[str, tuple[str, Hero]] = {
    "greedy": ("greedy (the baseline)", greedy_hero),
    "hard": ("hard: the best reply within a deal, over every deal its view allows", hard_hero),
    "oracle": ("oracle: sees the whole current deal (cheats)", oracle_hero),
}


def play_job(job: tuple[str, int]) -> float:
    name, game = job
    return play(HEROES[name][1], game)


def paired_gain(results: list[float], baseline: list[float]) -> tuple[float, float]:
    """The mean of ``results - baseline`` match by match, and its 95% margin (normal)."""
    differences = [mine - theirs for mine, theirs in zip(results, baseline, strict=True)]
    if len(differences) < 2:
        return statistics.fmean(differences), 0.0
    margin = 1.96 * statistics.stdev(differences) / math.sqrt(len(differences))
    return statistics.fmean(differences), margin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    args = parser.parse_args()
    lines = [
        "### Gnav: how far above greedy can a bot get?",
        "",
        f"Made by `.venv/bin/python bench/gnav_ceiling.py --games {args.games}` (part of"
        f" `make bench`) on {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC. One hero against"
        " three greedy bots, its seat rotated, the seeds of the strength games above. The"
        " oracle cheats: it sees every hand and the stock of the current deal and plays the"
        " action whose deal, finished by greedy players, leaves it the best chance to win"
        " the match. No honest bot can know more than its own card and what the table saw;"
        " the hard bot makes the most of that against these players, one deal ahead.",
        "",
        "*Over greedy* compares each match with the same match played by greedy in the"
        " hero's seat (same seeds): the mean difference in wins, with its 95% interval.",
        "",
        "| hero against three greedy bots | win rate | 95% interval | over greedy | games | time |",
        "|---|---|---|---|---|---|",
    ]
    baseline: list[float] = []
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for key, (name, _) in HEROES.items():
            started = time.perf_counter()
            jobs = [(key, game) for game in range(args.games)]
            results = list(pool.map(play_job, jobs, chunksize=8))
            baseline = baseline or results
            wins = sum(results)
            low, high = wilson(wins, args.games)
            gain, margin = paired_gain(results, baseline)
            over = "(itself)" if results is baseline else f"{gain:+.1%} ± {margin:.1%}"
            lines.append(
                f"| {name} | {wins / args.games:.1%} | {low:.1%} to {high:.1%}"
                f" | {over} | {args.games}"
                f" | {time.perf_counter() - started:.0f} s |"
            )
            print(lines[-1], flush=True)
    write_section(Path(args.out), "\n".join(lines) + "\n", source="bench/gnav_ceiling.py")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
