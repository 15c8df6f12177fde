"""The embedded default's stand-in for Celery beat: a timer thread in the web process.

Started only by ``runserver`` without Redis, so ``make run`` still plays timeouts,
ends vacations and prints reminder e-mails to the console with no worker.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

from django.conf import settings
from django.db import close_old_connections

logger = logging.getLogger(__name__)

INTERVAL_SECONDS = 60
_started = threading.Event()


def run_once() -> None:
    """One round of every sweep, as beat would schedule them."""
    from games.jobs import sweeps

    for sweep in (sweeps.sweep_vacations, sweeps.sweep_deadlines, sweeps.sweep_reminders):
        try:
            sweep()
        except Exception:
            logger.exception("embedded sweep %s failed", sweep.__name__)


def _loop() -> None:
    while True:
        close_old_connections()
        run_once()
        close_old_connections()
        threading.Event().wait(INTERVAL_SECONDS)


def should_start() -> bool:
    serving = len(sys.argv) > 1 and sys.argv[1] == "runserver"
    reloader_child = os.environ.get("RUN_MAIN") == "true" or "--noreload" in sys.argv
    return settings.TASKS_MODE == "thread" and serving and reloader_child


def start() -> None:
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_loop, name="embedded-sweeps", daemon=True).start()
