"""The figures as a table, printed and written into docs/benchmarks.md between their markers."""

from __future__ import annotations

import os
import time
from typing import Any

from bench.sections import DOCS, write_section
from bench.years.fill import Made
from bench.years.measure import AIM_MS, Measured

SECTION = "bench/years"


def _size(made: Made) -> str:
    s = made.size
    return (
        f"{s.players:,} players, {s.tables:,} finished tables, {s.running:,} running and open"
        f" ({s.profile_games:,} games for the profile's player)"
    )


def rows(results: list[Measured], smaller: dict[str, Any] | None, start: int = 0) -> list[str]:
    """The table: one row a page or sweep, with the queries of a smaller run beside ours;
    ``results`` from the ``start``-th of the run on."""
    # The same pages and sweeps in the same order: their names may differ (a deeper last page).
    before = (smaller or {}).get("results", [])
    small = smaller["made"]["size"]["tables"] if smaller else 0
    head = "| page or sweep | address or task | p50 ms | p95 ms | our CPU p50 ms | queries |"
    rule = "|---|---|---|---|---|---|"
    if smaller:
        head += f" queries at {small:,} tables |"
        rule += "---|"
    head += " within 50 ms p95 | load |"
    rule += "---|---|"
    lines = [head, rule]
    for index, item in enumerate(results, start=start):
        line = (
            f"| {item.name} | `{item.address}` | {item.p50:.1f} | {item.p95:.1f}"
            f" | {item.cpu_p50:.1f} | {item.query_count}{'' if item.fixed else ' (not fixed)'} |"
        )
        if smaller:
            other = before[index]["queries"] if index < len(before) else None
            line += f" {'/'.join(map(str, other)) if other else '-'} |"
        line += f" {'yes' if item.p95 <= AIM_MS else '**no**'} | {item.load} |"
        lines.append(line)
    return lines


def section(
    made: Made,
    results: list[Measured],
    *,
    command: str,
    database_bytes: int,
    loads: tuple[float, float],
    smaller: dict[str, Any] | None,
) -> str:
    generation = sum(made.seconds.values())
    steps = ", ".join(f"{name} {seconds:.0f} s" for name, seconds in made.seconds.items())
    counts = ", ".join(f"{count:,} {name}" for name, count in made.counts.items())
    missed = [item.name for item in results if item.p95 > AIM_MS]
    lines = [
        f"### Latest run (written by `{SECTION}`: `python -m bench.years`)",
        "",
        f"`{command}` on {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC: {_size(made)};"
        f" {os.cpu_count()} CPUs, load average {loads[0]:.1f} before the measures and"
        f" {loads[1]:.1f} after (each row's own in its last column).",
        "",
        f"Generated in {generation / 60:.1f} min ({steps}); the database holds"
        f" {database_bytes / 1e9:.1f} GB: {counts}.",
        "",
        *rows(results, smaller),
        "",
        (
            "Every page and sweep within 50 ms p95."
            if not missed
            else f"Over 50 ms p95: {', '.join(missed)}."
        ),
    ]
    return "\n".join(lines) + "\n"


def write(text: str) -> None:
    write_section(DOCS, text, source=SECTION)
    print(f"wrote {DOCS}")
