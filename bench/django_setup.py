"""Django for an in-process bench: the bench settings (DEBUG off, cached templates) on
``DATABASE_URL``, or on a PostgreSQL database of its own, made now and dropped at exit."""

from __future__ import annotations

import atexit
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_ARGS = ["-h", os.environ.get("PGHOST", "127.0.0.1"), "-U", os.environ.get("PGUSER", "postgres")]


def setup_django(name: str) -> None:
    """Configures and sets up Django; ``name`` names the scratch database and static folder."""
    sys.path.insert(0, str(ROOT))
    if not os.environ.get("DATABASE_URL"):
        database = f"{name}_{secrets.token_hex(4)}"
        subprocess.run(["createdb", *PG_ARGS, database], check=True)
        atexit.register(lambda: subprocess.run(["dropdb", "--force", *PG_ARGS, database]))
        os.environ["DATABASE_URL"] = f"postgres://{PG_ARGS[3]}@{PG_ARGS[1]}:5432/{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    os.environ.setdefault("BENCH_STATIC_ROOT", tempfile.mkdtemp(prefix=f"cardtables-{name}-"))
    os.environ.setdefault("DJANGO_SECRET_KEY", f"bench-{name}-" + "x" * 50)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")

    import django

    django.setup()
