"""The garbage collector of a web process, set once the site is loaded (``config.asgi``).

A move's answer and pushes make tens of thousands of short-lived objects (the board's
template nodes' contexts, the parts' strings, the statements' rows). With CPython's default
thresholds (700, 10, 10) the youngest generation is collected every 700 allocations, and
every hundredth collection is a full one that walks every object the process holds: Django,
the apps, the compiled templates, the memoised cards. Those are loaded once and live as long
as the process; ``gc.freeze`` moves them out of every later collection. A higher first
threshold then collects the young less often, each time more of them already gone.
"""

from __future__ import annotations

import gc

# Young objects allocated (less those freed) before a collection; then as CPython's own.
THRESHOLDS = (20_000, 10, 10)


def tune() -> None:
    """Freezes what the process has loaded and raises the first threshold. Once, at start."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
