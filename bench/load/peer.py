"""``--peer``: the boardgame.io peer (``../shared/bench/peer-bgio/``, District Noir, in
FlatFile storage, on PostgreSQL through bgio-postgres, and in memory), run right after the
phase nearest its client count; our District Noir rate as a share of each, and the aims of
issue 31.6 met or missed (its README says how it is set up and run)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support.processes import (
    ROOT,
    database_create,
    database_drop,
    free_port,
    postgres_url,
    stop,
    wait_for_port,
)

PEER_SOURCE = ROOT.parent / "shared" / "bench" / "peer-bgio"
# What the report in docs/benchmarks.md names: the module that runs the peer (its docstring
# says where the peer's files are). The docs cite only the repository's own files.
PEER_CITED = "bench/load/peer.py"
PEER_DIR = ROOT / "bench" / ".peer" / "peer-bgio"  # git-ignored; installed once, reused
PEER_PACKAGES = {
    "boardgame.io": "0.50.2",
    "koa-compose": "4.1.0",
    "node-persist": "3",
    "bgio-postgres": "1.0.16",
}
PEER_FILES = ("game.js", "server.js", "load.js")
#: The peer's storages, in the order they run: (key, name); and what stores them, where it
#: is not boardgame.io itself.
STORAGES = (("flatfile", "FlatFile"), ("postgres", "PostgreSQL"), ("memory", "in memory"))
ADAPTERS = {"postgres": f"bgio-postgres {PEER_PACKAGES['bgio-postgres']}"}
#: Issue 31.6: District Noir at 32 players (16 matches of the peer), at least this share of
#: the peer's rate in this storage.
AIMS = {"flatfile": 0.25, "postgres": 0.5}
AIM_PLAYERS = 32
#: What both sides' latencies time: to the mover seeing the new state. load.js stops its clock
#: at the first of the match's two clients (both in its process) to get the server's update,
#: the mover's, or the other's when its copy is handled first (both copies leave in one
#: ``sendAll`` loop, so they differ by little): the moves are
#: ``client: false``, so no client applies them before the server answers. boardgame.io
#: sends that update before its write (on PostgreSQL: a transaction rewriting the match's
#: whole log); the match's next move waits for that write (one update at a time a match).
TIMING = (
    "latency, both sides: a move's sending to the mover seeing the new state (ours: the"
    " answer on the mover's socket, after the commit; the peer's: the first of the match's"
    " two clients to get the server's update, which boardgame.io sends before its write)"
)
PEER_LINE = re.compile(
    r"boardgame\.io (?P<release>[\d.]+): (?P<matches>\d+) matches, (?P<seconds>[\d.]+) s: "
    r"(?P<moves_per_s>[\d.]+) moves/s, p50 (?P<p50>\S+) ms, p95 (?P<p95>\S+) ms, "
    r"p99 (?P<p99>\S+) ms, games finished (?P<games_finished>\d+), errors (?P<errors>\d+)"
)


def peer_setup(folder: Path, source: Path) -> None:
    """The peer's scratch folder: its npm packages installed once (then reused), its three
    files copied afresh from ``source``."""
    folder.mkdir(parents=True, exist_ok=True)

    def installed(name: str, release: str) -> bool:
        manifest = folder / "node_modules" / name / "package.json"
        if not manifest.exists():
            return False
        version = json.loads(manifest.read_text()).get("version", "")
        return version == release or version.startswith(release + ".")

    if not all(installed(name, release) for name, release in PEER_PACKAGES.items()):
        print(f"installing the boardgame.io peer in {folder}", flush=True)
        if not (folder / "package.json").exists():
            subprocess.run(["npm", "init", "-y"], cwd=folder, check=True, capture_output=True)
        packages = [f"{name}@{release}" for name, release in PEER_PACKAGES.items()]
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", *packages],
            cwd=folder,
            check=True,
            capture_output=True,
        )
    for name in PEER_FILES:
        shutil.copy2(source / name, folder / name)


def parse_peer_line(storage: str, text: str) -> dict:
    """The figures of load.js's one line in ``text`` (``moves_per_s`` None, and the last
    lines of ``text``, if there is none)."""
    match = PEER_LINE.search(text)
    if match is None:
        return {"storage": storage, "moves_per_s": None, "out": text.strip().splitlines()[-3:]}
    figures: dict = {"storage": storage, "line": match.group(0)}
    for key, value in match.groupdict().items():
        if key == "release":
            figures[key] = value
        elif key in ("matches", "games_finished", "errors"):
            figures[key] = int(value)
        else:
            try:
                figures[key] = float(value)
            except ValueError:  # "n/a": no move measured
                figures[key] = None
    return figures


def peer_postgres_url(database: str) -> str:
    """The peer's URL of ``database``, on the PostgreSQL server the site's bench uses."""
    return "postgresql://" + postgres_url(database).split("://", 1)[1]


def peer_run(folder: Path, matches: int, seconds: float, storage: str) -> dict:
    """One run of the peer: its server (``storage``: FlatFile in a fresh folder, PostgreSQL in
    a fresh database, dropped afterwards, or in memory) and its load generator, ``matches``
    District Noir matches of two clients for ``seconds`` (after its own 2 s of warming up);
    its one line of figures, parsed."""
    port = free_port()
    env = {**os.environ, "PEER_PORT": str(port)}
    command = ["node", "server.js"]
    store: Path | None = None
    database = ""
    if storage == "flatfile":
        store = Path(tempfile.mkdtemp(prefix="flatfile-", dir=folder))
        command += ["--flatfile", str(store)]
    elif storage == "postgres":
        database = database_create("peer_bgio")
        command += ["--postgres", peer_postgres_url(database)]
    log_path = folder / f"server-{storage}.log"
    try:
        with log_path.open("w") as log:
            server = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=log)
        try:
            wait_for_port(port, 30, server, f"the peer's server ({storage})")
            out = subprocess.run(
                ["node", "load.js", str(matches), f"{seconds:g}"],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                timeout=seconds + 120,
            )
            text = out.stdout + out.stderr
        except (RuntimeError, TimeoutError, subprocess.TimeoutExpired) as exc:
            text = f"{exc}\n{log_path.read_text(errors='replace')}"
        finally:
            stop(server, 15)
    finally:
        if store is not None:
            shutil.rmtree(store, ignore_errors=True)
        if database:
            database_drop(database)
    figures = parse_peer_line(storage, text)
    if database:
        figures["database"] = database
    return figures


def aims(peer: dict) -> dict[str, dict]:
    """Each aim of issue 31.6 (storage: its share, our ratio, met: True, False or None when
    the peer gave no figures)."""
    found = {}
    for storage, share in AIMS.items():
        ratio = peer.get(storage, {}).get("ratio")
        met = None if ratio is None else ratio >= share
        found[storage] = {"share": share, "ratio": ratio, "met": met}
    return found


def setup_caveat(players: int, matches: int, games: list[str]) -> str:
    """Why this run is not the aims' setup (District Noir only, 32 players, 16 matches), or
    ''."""
    if players == AIM_PLAYERS and 2 * matches == AIM_PLAYERS and games == ["district-noir"]:
        return ""
    return (
        f"this run is not the aims' setup ({players} players, {2 * matches} peer clients, {games})"
    )


def aim_sentence(storage: str, aim: dict) -> str:
    """``at least 0.5x the PostgreSQL rate: met (0.612x)``."""
    label = dict(STORAGES)[storage]
    if aim["met"] is None:
        return f"at least {aim['share']:g}x the {label} rate: no figures"
    verdict = "met" if aim["met"] else "missed"
    return f"at least {aim['share']:g}x the {label} rate: {verdict} ({aim['ratio']:.3f}x)"


def run_peer(args: argparse.Namespace, folder: Path, phase: dict) -> dict:
    """The boardgame.io peer right after our phase (not beside it), for as many seconds, in
    FlatFile storage, on PostgreSQL and in memory; the ratio of our District Noir rate to each,
    and the aims met or missed."""
    ours = phase["actions_per_s_by_game"].get("district-noir", 0.0)
    act = phase.get("latency_ms", {}).get("act") or {}
    peer: dict = {
        "after_players": phase["players"],
        "matches": args.peer_matches,
        "seconds": args.seconds,
        "ours_district_noir_per_s": ours,
        "ours_act_ms": {key: act.get(key) for key in ("p50", "p95", "p99")} if act else None,
    }
    print(
        f"\nboardgame.io peer, District Noir, {args.peer_matches} matches "
        f"({2 * args.peer_matches} clients), {args.seconds:g} s each; {TIMING}:",
        flush=True,
    )
    if act:
        print(
            f"  ours, {phase['players']} players ({', '.join(args.games)}): act p50"
            f" {act['p50']} ms, p95 {act['p95']} ms, p99 {act['p99']} ms"
        )
    for storage, label in STORAGES:
        if storage in ADAPTERS:
            label += f" ({ADAPTERS[storage]})"
        figures = peer_run(folder, args.peer_matches, args.seconds, storage)
        rate = figures.get("moves_per_s")
        figures["ratio"] = round(ours / rate, 3) if rate else None
        peer[storage] = figures
        if rate is None:
            print(f"  {label}: no figures: {figures.get('out')}", flush=True)
            continue
        print(
            f"  {label}: {figures['line']}\n"
            f"    our District Noir {ours} moves/s at {phase['players']} players ="
            f" {figures['ratio']:.3f}x its rate",
            flush=True,
        )
    peer["aims"] = aims(peer)
    peer["setup_caveat"] = setup_caveat(phase["players"], args.peer_matches, args.games)
    caveat = f"; {peer['setup_caveat']}" if peer["setup_caveat"] else ""
    for storage, aim in peer["aims"].items():
        print(
            f"  aim (issue 31.6, District Noir only, {AIM_PLAYERS} players): "
            + aim_sentence(storage, aim)
            + caveat
        )
    return peer
