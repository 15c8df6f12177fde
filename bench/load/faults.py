"""``--fault``: the private Redis paused (SIGSTOP, then SIGCONT) or killed and started again
empty in the middle of a phase, and what it cost (issue 20): the moves accepted against the
moves stored, the longest action, the sockets closed and how, and how long pages took to get
pushes again."""

from __future__ import annotations

import argparse
import asyncio
import time

from bench.load.stack import Stack
from bench.load.stats import Stats, percentile


async def inject_fault(stack: Stack, kind: str, at: float, seconds: float, record: dict) -> None:
    """``redis-pause``: the private Redis hangs (SIGSTOP) for ``seconds``, then goes on
    (SIGCONT) with all it held; ``redis-restart``: it is killed, and ``seconds`` later a new
    one starts on its port, empty (no groups, no queued tasks, no cache)."""
    await asyncio.sleep(at)
    record["start"] = time.monotonic()
    if kind == "redis-pause":
        stack.redis.pause()
    else:
        stack.redis.kill()
    print(f"fault: {kind} at {at:.0f} s for {seconds:.0f} s", flush=True)
    await asyncio.sleep(seconds)
    if kind == "redis-pause":
        stack.redis.resume()
    else:
        await asyncio.to_thread(stack.start_redis)
    record["end"] = time.monotonic()
    print("fault: over", flush=True)


def integrity(stack: Stack, stats: Stats, tables: list[tuple[str, int]]) -> dict[str, int]:
    """Moves the players were told were accepted, against the moves the database stored at
    the phase's tables (the bench seats no bot and no clock runs out, so every stored move is
    a player's); moves sent whose answer never came are counted apart."""
    ids = ",".join(str(table_id) for _game, table_id in tables) or "0"
    stored = int(stack.query(f"SELECT count(*) FROM games_move WHERE table_id IN ({ids})"))
    repeated = int(
        stack.query(
            "SELECT count(*) FROM (SELECT 1 FROM games_move"
            f" WHERE table_id IN ({ids}) GROUP BY table_id, seq HAVING count(*) > 1) AS twice"
        )
    )
    return {
        "accepted": stats.actions,
        "stored": stored,
        "unanswered": stats.unanswered,
        "stored_twice": repeated,
        "server_errors": sum(n for code, n in stats.statuses.items() if code >= 500)
        + sum(n for code, n in stats.refused_handshakes.items() if code >= 500),
    }


def fault_figures(args: argparse.Namespace, fault: dict, stats: Stats) -> dict:
    """What the fault cost: the longest action, the sockets closed and how, and how long each
    page took after the fault's end to get a push over a socket again."""
    end = fault.get("end")
    waits = []
    for moments in stats.pushes_at.values():
        after = [m for m in moments if end is not None and m >= end]
        if after:
            waits.append(min(after) - end)
    acts = stats.latency.get("act", [])
    return {
        "kind": args.fault,
        "seconds": args.fault_seconds,
        "longest_action_ms": round(max(acts), 1) if acts else None,
        "socket_closes": {str(code): n for code, n in stats.closes.items()},
        "refused_handshakes": {str(code): n for code, n in stats.refused_handshakes.items()},
        "pages_live_again": len(waits),
        "pages": len(stats.pushes_at),
        "live_again_s_p50": round(percentile(waits, 50), 1) if waits else None,
        "live_again_s_max": round(max(waits), 1) if waits else None,
    }
