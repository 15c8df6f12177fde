"""The site served as in production (uvicorn, tests/support/processes.py) in a process of its
own, on the test database, for a test that talks to it over HTTP as a program of a reader's
would: the API's clients (tests/api/test_example_bot.py). Its background work runs in a thread
of the server (``TASKS_MODE=thread``), so the site's bots move there, on their own.

A test that uses it is ``django_db(transaction=True)``: the server sees only what is committed.
The browser tests' server (tests/e2e/conftest.py, ``start_asgi_server``) is the same one with
the table pages' polling turned off.
"""

from __future__ import annotations

import os
import subprocess
from typing import IO, Any

import pytest
from django.db import connection

from tests.support.processes import database_url, start_uvicorn


def site_start(
    overrides: dict[str, str] | None = None, log: IO[Any] | None = None
) -> tuple[str, subprocess.Popen]:
    """(its address, its process); ``overrides``: more of its environment; its output goes to
    ``log``. Skips the test unless the database is PostgreSQL, which both processes share."""
    if connection.vendor != "postgresql":
        pytest.skip(
            "the site's server runs in another process and needs a database it shares: "
            "PostgreSQL (DATABASE_URL)"
        )
    env = dict(os.environ)  # keeps PYTEST_VERSION: the server uses the test settings
    env.update(DATABASE_URL=database_url(connection.settings_dict), TASKS_MODE="thread")
    env.update(overrides or {})
    port, process = start_uvicorn(env, "--timeout-graceful-shutdown", "3", log=log, seconds=30)
    return f"http://127.0.0.1:{port}", process
