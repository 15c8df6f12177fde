"""``python -m bench.years``: make years of data, measure the pages and sweeps on it, report.

    .venv/bin/python -m bench.years                  # the full size (part of make bench)
    .venv/bin/python -m bench.years --tables 10000 --players 2000 --running 200 \\
        --profile-games 500 --json small.json        # a quick check
    .venv/bin/python -m bench.years --compare small.json   # the small run's queries beside
    .venv/bin/python -m bench.years --keep           # keep the database (its name is printed)
    .venv/bin/python -m bench.years --database bench_years_1a2b3c4d   # measure it again
    .venv/bin/python -m bench.years --slowest        # the slowest queries of what missed the aim

Only a run at the full size writes its figures into docs/benchmarks.md (unless --no-write).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.support.processes import (  # noqa: E402
    RedisServer,
    database_create,
    database_drop,
    postgres_url,
)

if TYPE_CHECKING:
    from bench.years.fill import Made

META = "bench_years"  # a table of the generated database: what was made, for a later run


def arguments() -> argparse.Namespace:
    from bench.years.plan import Size

    full = Size()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=full.tables, help="finished tables")
    parser.add_argument("--players", type=int, default=full.players)
    parser.add_argument("--running", type=int, default=full.running, help="running and open")
    parser.add_argument("--profile-games", type=int, default=full.profile_games)
    parser.add_argument("--recorded", type=int, default=full.recorded, help="games recorded")
    parser.add_argument("--runs", type=int, default=50, help="timed runs of each page, sweep")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the database")
    parser.add_argument("--database", help="use this database (filled first if empty); kept")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--compare", type=Path, help="a smaller run's --json: its queries beside")
    parser.add_argument("--slowest", action="store_true", help="slowest queries of the misses")
    parser.add_argument("--no-write", action="store_true", help="leave docs/benchmarks.md alone")
    parser.add_argument("--generate-only", action="store_true", help="no measures (with --keep)")
    parser.add_argument("--only", help="measure only what has one of these (a,b,...) in its name")
    return parser.parse_args()


def main() -> None:
    args = arguments()
    name = args.database or database_create("bench_years")
    keep = args.keep or bool(args.database)
    print(f"database {name}{' (kept)' if keep else ''}", flush=True)
    os.environ["DATABASE_URL"] = postgres_url(name)
    os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend")
    redis = RedisServer()
    redis.start()
    os.environ["REDIS_URL"] = redis.url  # sessions and the cache in Redis, as in production
    try:
        run(args)
    finally:
        from django.db import connections

        connections.close_all()
        redis.stop()
        if not keep:
            database_drop(name)
            print(f"dropped {name}")


def run(args: argparse.Namespace) -> None:
    from bench.django_setup import setup_django

    # No sweeps of the embedded default in this process (its first request would start them):
    # they would play the generated timeouts and send its reminders for real while the pages
    # are measured, and the sweeps measured after would find less due.
    os.environ.setdefault("TASKS_MODE", "inline")
    setup_django("years")

    from django.core.management import call_command

    from bench.years import measure, report, rows
    from bench.years.fill import generate
    from bench.years.plan import Size
    from games.catalog import playable_games

    call_command("migrate", verbosity=0)
    call_command("collectstatic", "--noinput", verbosity=0)
    size = Size(args.tables, args.players, args.running, args.profile_games, args.recorded)
    made = stored()
    if made is None:
        print(f"generating: {size}", flush=True)
        made = generate(size)
        started = time.monotonic()
        rows.run("VACUUM ANALYZE")  # as autovacuum would have, over the years
        made.seconds["vacuum and analyze"] = round(time.monotonic() - started, 1)
        store(made)
    elif made.size != size:
        print(f"the database holds {made.size}, not {size}: measuring it as it is")
    database_bytes = int(rows.value("SELECT pg_database_size(current_database())"))
    print(
        f"generated in {sum(made.seconds.values()) / 60:.1f} min; the database holds"
        f" {database_bytes / 1e9:.2f} GB; {made.counts}",
        flush=True,
    )
    if args.generate_only:
        return
    games = [rules.slug for rules in playable_games()]
    found = measure.subjects(made.star, games)
    before = os.getloadavg()[0]
    results = []
    smaller = json.loads(args.compare.read_text()) if args.compare else None
    print("\n".join(report.rows([], smaller)), flush=True)
    chosen = measure.chosen(args.only)
    for item in [
        *measure.pages(found, games, args.runs, args.warmup, chosen),
        *measure.sweeps(made.now, args.runs, args.warmup, chosen),
    ]:
        results.append(item)
        print(report.rows([item], smaller, start=len(results) - 1)[-1], flush=True)
    loads = (before, os.getloadavg()[0])
    if args.slowest:
        for item in results:
            if item.p95 > measure.AIM_MS:
                print(f"\n{item.name}:")
                for ms, sql in measure.slowest(item):
                    print(f"  {ms:8.1f} ms  {sql[:400]}")
    command = shlex.join([".venv/bin/python", "-m", "bench.years", *sys.argv[1:]])
    text = report.section(
        made,
        results,
        command=command,
        database_bytes=database_bytes,
        loads=loads,
        smaller=smaller,
    )
    if args.json:
        figures = {"made": made.to_json(), "results": [r.to_json() for r in results]}
        args.json.write_text(json.dumps(figures, indent=1))
    if not args.no_write and not args.only and made.size == Size():
        report.write(text)


def stored() -> Made | None:
    """What an earlier run made in this database, if it did."""
    from bench.years import rows
    from bench.years.fill import Made

    if not rows.value("SELECT to_regclass(%(t)s) IS NOT NULL", {"t": META}):
        return None
    value = rows.value(f"SELECT value::text FROM {META} WHERE key = 'made'")
    return Made.from_json(json.loads(value)) if value else None


def store(made: Made) -> None:
    from bench.years import rows

    rows.run(f"CREATE TABLE IF NOT EXISTS {META} (key text PRIMARY KEY, value jsonb NOT NULL)")
    rows.run(
        f"INSERT INTO {META} VALUES ('made', %(v)s) ON CONFLICT (key) DO UPDATE SET value ="
        " excluded.value",
        {"v": json.dumps(made.to_json())},
    )


if __name__ == "__main__":
    main()
