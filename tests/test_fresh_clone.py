"""What a fresh clone runs with nothing configured: the commands the README and the pages
print must work as written; serving without a secret key must still refuse to start."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from tests.conftest import client_for
from tests.games.rated_games import finished_game

ROOT = Path(__file__).resolve().parent.parent
# Whatever configures this test run (pytest's marker, the CI's database, a developer's
# key) is not there on a fresh clone.
CONFIGURING = ("DJANGO_", "PYTEST_", "DATABASE_URL", "REDIS_URL", "SITE_URL", "PORT", "TASKS_")


def _bare_environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(CONFIGURING)}
    return {**env, **extra}


def _run(*args: str, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=_bare_environment(**extra),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.django_db
def test_verify_game_runs_as_the_readme_writes_it_with_nothing_configured(alice, bob, tmp_path):
    table = finished_game(alice, bob)
    record = client_for(None).get(reverse("table_record", args=[table.pk])).json()
    (tmp_path / "record.json").write_text(json.dumps(record))
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "verify_game", "--file", "record.json"],
        cwd=tmp_path,
        env=_bare_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "OK: the seed and the moves give exactly the final state." in done.stdout


def test_serving_without_a_secret_key_still_refuses_to_start():
    for entry in ("config.asgi", "config.wsgi"):
        done = _run("-c", f"import {entry}")
        assert done.returncode != 0, entry
        assert "Set DJANGO_SECRET_KEY" in done.stderr, entry
    deploy = _run("manage.py", "check", "--deploy")
    assert deploy.returncode != 0
    assert "Set DJANGO_SECRET_KEY" in deploy.stderr


def test_the_deploy_check_passes_with_a_secret_key_as_ci_runs_it():
    done = _run(
        "manage.py",
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_SECRET_KEY="a-long-random-looking-secret-value-for-this-check-0123456789",
        DJANGO_ALLOWED_HOSTS="example.org",
    )
    assert done.returncode == 0, done.stderr


def test_every_file_the_readme_names_is_in_the_repository():
    """A fresh clone has only the repository: a path that leaves it leads nowhere."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([^`\s<>:]*/[^`\s<>:]*)`", readme))
    paths = {path for path in named if not path.startswith("/")}  # "/t/<id>/replay/": a URL
    assert "docs/design.md" in paths and "docs/architecture.md" in paths
    for path in sorted(paths):
        found = (ROOT / path).resolve()
        assert found.is_relative_to(ROOT) and found.exists(), path
