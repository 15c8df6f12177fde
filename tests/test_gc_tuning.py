"""A web process keeps what it loaded at start out of the garbage collector's walks, and collects
its young objects less often (``config.gc_tuning``): a full collection of everything Django and
the apps loaded took 170 ms of a move's path (bench notes in docs/benchmarks.md)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from config import gc_tuning

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
import gc, json
import config.asgi
print(json.dumps({"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()}))
"""


def test_the_web_process_freezes_what_it_loaded_and_raises_the_first_threshold():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.setdefault("DJANGO_SECRET_KEY", "gc-tuning-test-" + "x" * 40)
    found = subprocess.run(
        [sys.executable, "-c", _PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    probe = json.loads(found.stdout.strip().splitlines()[-1])
    assert tuple(probe["threshold"]) == gc_tuning.THRESHOLDS
    assert probe["threshold"][0] > 700, "CPython's default: every 700 allocations"
    assert probe["frozen"] > 10_000, "Django and the apps are frozen"
