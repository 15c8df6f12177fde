"""The machine's ceiling for moves: pgbench's rate for a move-shaped transaction (lock a row,
update it, append a log row) on the stack's PostgreSQL, on tables of its own."""

from __future__ import annotations

import re
import subprocess

from bench.load.stack import Stack
from tests.support.processes import PG_ARGS

PGBENCH_SCRIPT = """\\set id random(1, 1000)
BEGIN;
SELECT version FROM bench_row WHERE id = :id FOR UPDATE;
UPDATE bench_row SET version = version + 1, state = md5(random()::text) || substr(state, 33)
  WHERE id = :id;
INSERT INTO bench_log (row_id, version, action) VALUES (:id, 1, '{"type": "play", "card": 17}');
COMMIT;
"""
PGBENCH_SETUP = """
CREATE TABLE bench_row (id int PRIMARY KEY, version int NOT NULL, state text NOT NULL);
CREATE TABLE bench_log (id bigserial PRIMARY KEY, row_id int NOT NULL, version int NOT NULL,
                        action text NOT NULL, at timestamptz NOT NULL DEFAULT now());
INSERT INTO bench_row SELECT g, 0, repeat('x', 2000) FROM generate_series(1, 1000) g;
"""


def pgbench(stack: Stack, clients: int, seconds: int) -> float:
    stack.psql(PGBENCH_SETUP)
    script = stack.tmp / "move.sql"
    script.write_text(PGBENCH_SCRIPT)
    out = subprocess.run(
        [
            "pgbench",
            *PG_ARGS,
            "-n",
            "-c",
            str(clients),
            "-j",
            "2",
            "-T",
            str(seconds),
            "-f",
            str(script),
            stack.db,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    match = re.search(r"tps = ([\d.]+)", out)
    return float(match.group(1)) if match else float("nan")
