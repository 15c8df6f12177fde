"""What docs/deploy.md's "First install" has an operator write and run: its environment file
reads the same in the shell as in systemd, names only variables the site reads, and passes
Django's deployment check through ``deploy/cardtables-manage``, which runs ``manage.py`` as the
services do."""

from __future__ import annotations

import getpass
import json
import os
import re
import secrets
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEPLOY_MD = ROOT / "docs" / "deploy.md"
MANAGE = ROOT / "deploy" / "cardtables-manage"
# What configures this test run is not in an operator's shell.
CONFIGURING = ("DJANGO_", "PYTEST_", "DATABASE_URL", "REDIS_", "SITE_", "PORT", "TASKS_", "EMAIL_")
# A line both systemd's EnvironmentFile and the shell read the same: a bare value, or one in
# double quotes, without $, backquote or backslash (which the two read differently).
SAME_IN_BOTH = re.compile(r'^[A-Z][A-Z0-9_]*=("[^"$`\\]*"|[^\s"\'$`\\<>;&|()]*)$')


def environment_file() -> list[str]:
    """The lines of the environment file in docs/deploy.md (the fenced block that sets the
    secret key)."""
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", DEPLOY_MD.read_text(), re.S | re.M)
    found = [b for b in blocks if re.search(r"^DJANGO_SECRET_KEY=", b, re.M)]
    assert len(found) == 1, "one environment file in docs/deploy.md"
    return found[0].splitlines()


def _manage(env_file: Path, *args: str, **extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(CONFIGURING)}
    env.update(CARDTABLES_ENV=str(env_file), CARDTABLES_DIR=str(ROOT), **extra)
    env["CARDTABLES_USER"] = getpass.getuser()  # as the services' user, who runs it here
    return subprocess.run(
        [str(MANAGE), *args], env=env, capture_output=True, text=True, timeout=120, cwd="/"
    )


def test_the_environment_file_reads_the_same_in_systemd_and_the_shell():
    lines = environment_file()
    assert lines
    for line in lines:
        assert SAME_IN_BOTH.match(line), line


def test_the_environment_file_names_only_variables_the_site_reads():
    """A misspelt name would be ignored without a word: every one is read by the settings,
    by dj-database-url (DATABASE_URL) or by the web unit (WEB_WORKERS)."""
    import dj_database_url

    settings = (ROOT / "config" / "settings.py").read_text()
    unit = (ROOT / "deploy" / "systemd" / "cardtables-web@.service").read_text()
    read = set(re.findall(r'(?:environ\.get|env_bool|env_list)\(\s*"([A-Z0-9_]+)"', settings))
    read |= set(re.findall(r"\$\{([A-Z0-9_]+)[:}]", unit)) | {dj_database_url.DEFAULT_ENV}
    for line in environment_file():
        assert line.split("=", 1)[0] in read, line


def test_the_environment_file_passes_the_deploy_check_through_cardtables_manage(tmp_path):
    key = secrets.token_urlsafe(50)
    lines = [
        f"DJANGO_SECRET_KEY={key}" if line.startswith("DJANGO_SECRET_KEY=") else line
        for line in environment_file()
    ]
    env_file = tmp_path / "cardtables.env"
    env_file.write_text("\n".join(lines) + "\n")

    done = _manage(env_file, "check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stderr
    assert "System check identified no issues" in done.stdout

    script = (
        "import json; from django.conf import settings as s; print(json.dumps([s.SITE_NAME,"
        " s.DEFAULT_FROM_EMAIL, s.ALLOWED_HOSTS, s.CSRF_TRUSTED_ORIGINS, s.SITE_URL,"
        " s.DATABASES['default']['NAME'], s.DATABASES['default']['USER'], s.REDIS_URL,"
        " s.EMAIL_USE_TLS, s.SECRET_KEY == " + repr(key) + ", s.DEBUG]))"
    )
    done = _manage(env_file, "shell", "-c", script)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [
        "Card Tables",
        "Card Tables <noreply@cards.example.org>",
        ["cards.example.org"],
        ["https://cards.example.org"],
        "https://cards.example.org",
        "cardtables",
        "cardtables",
        "redis://127.0.0.1:6379/0",
        True,
        True,
        False,
    ]


def test_cardtables_manage_runs_on_another_database_for_the_restore_drill(tmp_path):
    env_file = tmp_path / "cardtables.env"
    env_file.write_text("DATABASE_URL=postgres://cardtables:pw@127.0.0.1:5432/cardtables\n")
    script = "from django.conf import settings as s; print(s.DATABASES['default']['NAME'])"
    done = _manage(env_file, "shell", "-c", script, CARDTABLES_DATABASE="cardtables_drill")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "cardtables_drill"
