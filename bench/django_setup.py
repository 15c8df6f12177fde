"""Django for an in-process bench: the bench settings (DEBUG off, cached templates) on
``DATABASE_URL``, or on a PostgreSQL database of its own, made now and dropped at exit."""

from __future__ import annotations

import atexit
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.processes import database_create, database_drop, postgres_url  # noqa: E402


def setup_django(name: str) -> None:
    """Configures and sets up Django; ``name`` names the scratch database and static folder."""
    if not os.environ.get("DATABASE_URL"):
        database = database_create(name)
        atexit.register(database_drop, database)
        os.environ["DATABASE_URL"] = postgres_url(database)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    os.environ.setdefault("BENCH_STATIC_ROOT", tempfile.mkdtemp(prefix=f"cardtables-{name}-"))
    os.environ.setdefault("DJANGO_SECRET_KEY", f"bench-{name}-" + "x" * 50)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")

    import django

    django.setup()
