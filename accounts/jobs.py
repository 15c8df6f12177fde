"""accounts' periodic task: expired sessions go, with the device rows that named them."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="accounts.tasks.sweep_sessions")
def sweep_sessions() -> int:
    from accounts.sessions import sessions_sweep

    return sessions_sweep()
