"""Clocks between middlewares, for ``bench/boards.py``: each middleware's own CPU time.

``Timer<i>`` sits in front of the i-th middleware of the list (and one more in front of the
view): the CPU time between two timers on the way in and on the way out is what the
middleware between them did itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

MARKS: list[tuple[int, str, float]] = []  # (timer, "in" or "out", process time)


def _timer(index: int) -> type:
    class Timer:
        def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
            self.get_response = get_response

        def __call__(self, request: HttpRequest) -> HttpResponse:
            MARKS.append((index, "in", time.process_time()))
            response = self.get_response(request)
            MARKS.append((index, "out", time.process_time()))
            return response

    Timer.__name__ = f"Timer{index}"
    return Timer


for _i in range(40):
    globals()[f"Timer{_i}"] = _timer(_i)


def with_timers(middleware: list[str]) -> list[str]:
    """``middleware`` with a timer in front of each, and one in front of the view."""
    timed = []
    for index, path in enumerate(middleware):
        timed += [f"bench.middleware_timer.Timer{index}", path]
    return [*timed, f"bench.middleware_timer.Timer{len(middleware)}"]


def shares(count: int) -> list[float]:
    """Mean CPU ms of each of ``count`` middlewares (and, last, the view), from MARKS."""
    totals = [0.0] * (count + 1)
    requests = 0
    at: dict[tuple[int, str], float] = {}
    for index, way, when in MARKS:
        at[(index, way)] = when
        if index == 0 and way == "out":
            requests += 1
            for i in range(count):
                inside = at[(i + 1, "in")] - at[(i, "in")] + at[(i, "out")] - at[(i + 1, "out")]
                totals[i] += inside
            totals[count] += at[(count, "out")] - at[(count, "in")]
    return [1000 * t / max(requests, 1) for t in totals]
