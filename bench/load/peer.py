"""``--peer``: the boardgame.io peer (``../shared/bench/peer-bgio/``, District Noir, in
FlatFile storage and in memory), run right after the phase nearest its client count; our
District Noir rate as a share of its (its README says how it is set up and run)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support.processes import ROOT, free_port, stop, wait_for_port

PEER_SOURCE = ROOT.parent / "shared" / "bench" / "peer-bgio"
PEER_CITED = "../shared/bench/peer-bgio/"  # where the report says it is
PEER_DIR = ROOT / "bench" / ".peer" / "peer-bgio"  # git-ignored; installed once, reused
PEER_PACKAGES = {"boardgame.io": "0.50.2", "koa-compose": "4.1.0", "node-persist": "3"}
PEER_FILES = ("game.js", "server.js", "load.js")
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


def peer_run(folder: Path, matches: int, seconds: float, flatfile: bool) -> dict:
    """One run of the peer: its server (FlatFile storage in a fresh folder, or in memory) and
    its load generator, ``matches`` District Noir matches of two clients for ``seconds``
    (after its own 2 s of warming up); its one line of figures, parsed."""
    port = free_port()
    env = {**os.environ, "PEER_PORT": str(port)}
    command = ["node", "server.js"]
    store = Path(tempfile.mkdtemp(prefix="flatfile-", dir=folder)) if flatfile else None
    if store is not None:
        command += ["--flatfile", str(store)]
    with (folder / "server.log").open("w") as log:
        server = subprocess.Popen(command, cwd=folder, env=env, stdout=log, stderr=log)
    try:
        wait_for_port(port, 30)
        out = subprocess.run(
            ["node", "load.js", str(matches), f"{seconds:g}"],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=seconds + 120,
        )
    finally:
        stop(server, 15)
        if store is not None:
            shutil.rmtree(store, ignore_errors=True)
    match = PEER_LINE.search(out.stdout)
    if match is None:
        tail = (out.stdout + out.stderr).strip().splitlines()[-3:]
        return {"storage": "flatfile" if flatfile else "memory", "moves_per_s": None, "out": tail}
    figures: dict = {"storage": "flatfile" if flatfile else "memory", "line": match.group(0)}
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


def run_peer(args: argparse.Namespace, folder: Path, phase: dict) -> dict:
    """The boardgame.io peer right after our phase (not beside it), for as many seconds, in
    FlatFile storage and in memory; the ratio of our District Noir rate to each."""
    ours = phase["actions_per_s_by_game"].get("district-noir", 0.0)
    peer: dict = {
        "after_players": phase["players"],
        "matches": args.peer_matches,
        "seconds": args.seconds,
        "ours_district_noir_per_s": ours,
    }
    print(
        f"\nboardgame.io peer, District Noir, {args.peer_matches} matches "
        f"({2 * args.peer_matches} clients), {args.seconds:g} s each:",
        flush=True,
    )
    for flatfile in (True, False):
        figures = peer_run(folder, args.peer_matches, args.seconds, flatfile)
        rate = figures.get("moves_per_s")
        figures["ratio"] = round(ours / rate, 3) if rate else None
        peer[figures["storage"]] = figures
        if rate is None:
            print(f"  {figures['storage']}: no figures: {figures.get('out')}")
            continue
        print(
            f"  {figures['storage']}: {figures['line']}\n"
            f"    our District Noir {ours} moves/s at {phase['players']} players ="
            f" {figures['ratio']:.3f}x its rate",
            flush=True,
        )
    ratio = peer["flatfile"].get("ratio")
    if ratio is not None:
        verdict = "met" if ratio >= 0.25 else "missed"
        setup = ""
        if phase["players"] != 2 * args.peer_matches or args.games != ["district-noir"]:
            setup = f"; this run is not the aim's setup ({phase['players']} players, {args.games})"
        print(
            "  aim (issue 17, District Noir only, 32 players): at least 0.25x the FlatFile"
            f" rate: {verdict} ({ratio:.3f}x{setup})"
        )
    return peer
