"""The backup and the restore drill of docs/deploy.md, done as written there, on the real
PostgreSQL: the nightly script (deploy/cardtables-backup) dumps a site that has a finished game
and keeps only the dumps of the last BACKUP_KEEP_DAYS; restored into a fresh database, the dump
gives back every row, the code finds its schema complete there (``migrate --check``) and the
game replays from its seed and moves to the same end (``verify_game``)."""

from __future__ import annotations

import getpass
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from django.db import connection

from accounts.models import User
from games.models import Move, Seat, Table
from tests.games.rated_games import finished_game

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parent.parent
BACKUP = ROOT / "deploy" / "cardtables-backup"
MANAGE = ROOT / "deploy" / "cardtables-manage"
CONFIGURING = ("DJANGO_", "PYTEST_", "DATABASE_URL", "REDIS_", "TASKS_")
DAY = 24 * 3600


def _postgres_environment() -> dict[str, str]:
    """libpq's variables for the test database, as the backup script and the tools read them."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "PGHOST": db["HOST"] or "127.0.0.1",
        "PGPORT": str(db["PORT"] or 5432),
        "PGUSER": db["USER"],
        "PGDATABASE": db["NAME"],
    }
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = db["PASSWORD"]
    return env


def _database_url(env: dict[str, str]) -> str:
    password = f":{env['PGPASSWORD']}" if env.get("PGPASSWORD") else ""
    host = f"{env['PGHOST']}:{env['PGPORT']}"
    return f"postgres://{env['PGUSER']}{password}@{host}/{env['PGDATABASE']}"


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, f"{args}: {done.stderr}"
    return done


def _count(env: dict[str, str], database: str, model: type) -> int:
    sql = f"SELECT count(*) FROM {model._meta.db_table}"
    return int(_run(["psql", "-d", database, "-tAc", sql], env).stdout)


def _with_mtime(path: Path, age_days: float) -> Path:
    path.write_bytes(b"an older dump")
    moment = time.time() - age_days * DAY
    os.utime(path, (moment, moment))
    return path


def test_the_nightly_dump_restores_into_a_fresh_database_with_every_row(alice, bob, tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("pg_dump and pg_restore need PostgreSQL")
    if not shutil.which("pg_dump"):
        if os.environ.get("CI"):
            pytest.fail("pg_dump is missing (.ci/run installs postgresql-client)")
        pytest.skip("pg_dump is not installed (apt-get install postgresql-client)")
    table = finished_game(alice, bob)
    env = _postgres_environment()
    name = env["PGDATABASE"]
    stale = _with_mtime(tmp_path / f"{name}-20000101T000000Z.dump", 20)
    recent = _with_mtime(tmp_path / f"{name}-20000102T000000Z.dump", 3)
    unrelated = _with_mtime(tmp_path / "notes.txt", 20)

    done = _run([str(BACKUP)], {**env, "BACKUP_DIR": str(tmp_path), "BACKUP_KEEP_DAYS": "14"})
    dump = Path(done.stdout.strip())
    assert dump.parent == tmp_path and dump.stat().st_size > 0
    assert dump.read_bytes()[:5] == b"PGDMP"  # pg_dump's custom format, for pg_restore
    assert not stale.exists(), "a dump older than BACKUP_KEEP_DAYS is removed"
    assert recent.exists() and unrelated.exists()
    assert not list(tmp_path.glob("*.partial"))

    # The drill, as docs/deploy.md writes it (the owner: this test's role).
    drill = f"{name}_drill"
    _run(["dropdb", "--if-exists", drill], env)
    _run(
        ["createdb", "--owner", env["PGUSER"], "--encoding", "UTF8", "--template", "template0"]
        + [drill],
        env,
    )
    try:
        _run(["pg_restore", "--dbname", drill, "--exit-on-error", str(dump)], env)
        for model in (User, Table, Seat, Move):
            assert _count(env, drill, model) == model.objects.count() > 0, model.__name__

        # deploy/cardtables-manage, on the drill's database, as the services would run.
        env_file = tmp_path / "cardtables.env"
        env_file.write_text(f"DATABASE_URL={_database_url(env)}\n")
        site = {k: v for k, v in env.items() if not k.startswith(CONFIGURING)}
        site.update(
            CARDTABLES_ENV=str(env_file),
            CARDTABLES_DIR=str(ROOT),
            CARDTABLES_USER=getpass.getuser(),
            CARDTABLES_DATABASE=drill,
        )
        _run([str(MANAGE), "migrate", "--check"], site)
        verified = _run([str(MANAGE), "verify_game", str(table.pk)], site)
        assert "OK: the seed and the moves give exactly the final state." in verified.stdout
    finally:
        _run(["dropdb", "--if-exists", drill], env)
