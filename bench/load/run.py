"""The load bench's run: the stack up, every player signed in, then for each N a phase in which
N players sit at tables of each game in turn and play them through (live pages, or polling
ones), the figures of each phase, a first load's bytes per game, and pgbench's ceiling."""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
from pathlib import Path

from bench.load import report
from bench.load.client import Player
from bench.load.faults import fault_figures, inject_fault, integrity
from bench.load.live import play_live
from bench.load.peer import peer_setup, run_peer
from bench.load.pgbench import pgbench
from bench.load.players import player_name
from bench.load.stack import Stack, cpu_by_role
from bench.load.stats import Stats, merge, phase_figures
from bench.load.wire import first_load

# (game, seats): one table of each, over and over, in this order.
GAMES = [("gnav", 4), ("slide", 3), ("district-noir", 2), ("point-city", 2)]


def seat_groups(players: int, games: list[tuple[str, int]] = GAMES) -> list[tuple[str, int, int]]:
    """Splits ``players`` into tables of each of ``games`` in turn: (game, seats, first
    player). A table is left out that would leave too few players for any other table,
    unless no game fits otherwise; players who fit no table sit out."""
    smallest = min(seats for _game, seats in games)
    groups, left, i, misses = [], players, 0, 0
    while left and misses < 2 * len(games):
        game, seats = games[i % len(games)]
        i += 1
        rest = left - seats
        if rest == 0 or rest >= smallest or (rest > 0 and misses >= len(games)):
            groups.append((game, seats, players - left))
            left, misses = rest, 0
        else:
            misses += 1
    return groups


async def run_group(
    players: list[Player],
    game: str,
    stop_at: float,
    poll: float | None,
    think: float,
    tables: list[tuple[str, int]],
) -> None:
    """One table after another for these players; ``poll`` None: live pages (websockets)."""
    host = players[0]
    for player in players:
        player.table_mates = players
    while time.monotonic() < stop_at:
        try:
            table_id = await host.create_table(game, len(players))
            for player in players[1:]:
                await player.join(table_id)
        except RuntimeError as exc:
            host.stats.error(str(exc))
            await asyncio.sleep(1)
            continue
        tables.append((game, table_id))
        if poll is None:
            plays = (play_live(p, table_id, game, stop_at, think) for p in players)
        else:
            plays = (p.play(table_id, game, stop_at, poll, think) for p in players)
        ended = await asyncio.gather(*plays)
        if all(ended):
            host.stats.games_finished += 1


async def run_phase(
    players: list[Player],
    seconds: float,
    poll: float | None,
    think: float,
    games: list[tuple[str, int]] = GAMES,
) -> tuple[Stats, float, list[tuple[str, int]]]:
    for p in players:
        p.stats = Stats()
    tables: list[tuple[str, int]] = []
    groups = seat_groups(len(players), games)
    seated = sum(seats for _game, seats, _first in groups)
    if seated < len(players):
        print(f"{len(players) - seated} players sit out: no table of {games} fits them")
    start = time.monotonic()
    stop_at = start + seconds
    await asyncio.gather(
        *(
            run_group(players[first : first + seats], game, stop_at, poll, think, tables)
            for game, seats, first in groups
        )
    )
    return merge([p.stats for p in players]), time.monotonic() - start, tables


async def main(args: argparse.Namespace) -> dict:
    sizes = [int(n) for n in args.players.split(",")]
    games = [(game, seats) for game, seats in GAMES if game in args.games]
    # The peer runs right after the phase nearest its client count (two a match).
    peer_after = min(sizes, key=lambda n: (abs(n - 2 * args.peer_matches), -n))
    stack = Stack(args.server, args.servers, max(sizes), args.keep_logs, args.ws)
    result: dict = {
        "phases": [],
        "load_before": os.getloadavg(),
        "setup": {
            "server": f"{args.server} x{args.servers}",
            "pages": "live (websocket)" if args.live else f"polling every {args.poll} s",
            "think_s": args.think,
            "chat_s": args.chat,
            "games": [game for game, _seats in games],
        },
    }
    peer_folder = Path(args.peer_dir)
    if args.peer:  # before the stack starts: an npm install is no part of any measurement
        peer_setup(peer_folder, Path(args.peer_source))
    try:
        stack.start()
        pids = " ".join(str(proc.pid) for proc in stack.procs)
        print(f"stack up: {', '.join(stack.urls)}, database {stack.db}, pids {pids}", flush=True)
        players = await signed_in(stack, max(sizes), args.seed)
        for player in players:
            player.chat_every = args.chat
        last_tables: list[tuple[str, int]] = []
        for n in sizes:
            phase, tables = await measured_phase(stack, players[:n], args, games)
            last_tables = tables or last_tables
            result["phases"].append(phase)
            if args.peer and n == peer_after:
                result["peer"] = run_peer(args, peer_folder, phase)

        loads = {}
        for game, _seats in games:
            table_id = next((t for g, t in reversed(last_tables) if g == game), None)
            if table_id is not None:
                loads[game] = await first_load(players[0].base, players[0].client.cookies, table_id)
        messages = result["phases"][-1]["message_bytes"] if result["phases"] else {}
        result["bytes"] = {"first_load": loads, "message_per_move": messages}
        report.print_first_loads(loads)
        for p in players:
            await p.close()

        result["pgbench_tps"] = pgbench(stack, args.pg_clients, args.pg_seconds)
        report.print_pgbench(result, args.pg_clients)
    finally:
        stack.stop()
    result["load_after"] = os.getloadavg()
    print(f"load average before {result['load_before']}, after {result['load_after']}")
    return result


async def signed_in(stack: Stack, count: int, seed: int) -> list[Player]:
    """The players, each signed in through the sign-in form (four at a time), spread over the
    stack's servers."""
    rng = random.Random(seed)
    players = [
        Player(player_name(i), stack.urls[i % len(stack.urls)], random.Random(rng.random()))
        for i in range(count)
    ]
    gate = asyncio.Semaphore(4)

    async def login(p: Player) -> None:
        async with gate:
            await p.login()

    started = time.monotonic()
    await asyncio.gather(*(login(p) for p in players))
    print(f"{len(players)} players signed in in {time.monotonic() - started:.0f} s", flush=True)
    return players


async def measured_phase(
    stack: Stack, players: list[Player], args: argparse.Namespace, games: list[tuple[str, int]]
) -> tuple[dict, list[tuple[str, int]]]:
    """One phase (with its fault, ``--fault``), its figures printed; (its figures, its
    tables)."""
    cpu_before = cpu_by_role(stack.roles, stack.db)
    fault: dict = {}
    injecting = None
    if args.fault:
        at = args.seconds / 3 if args.fault_at is None else args.fault_at
        injecting = asyncio.ensure_future(
            inject_fault(stack, args.fault, at, args.fault_seconds, fault)
        )
    stats, elapsed, tables = await run_phase(
        players, args.seconds, None if args.live else args.poll, args.think, games
    )
    if injecting is not None:
        await injecting
    cpu_after = cpu_by_role(stack.roles, stack.db)
    phase = phase_figures(stats, len(players), elapsed)
    phase["cpu_ms_per_action"] = {
        role: round(1000 * (cpu_after[role] - cpu_before[role]) / max(stats.actions, 1), 1)
        for role in cpu_after
    }
    phase["integrity"] = integrity(stack, stats, tables)
    if args.fault:
        phase["fault"] = fault_figures(args, fault, stats)
    report.print_phase(phase, stats, args.live)
    return phase, tables
