"""The site's name and address in e-mails come from the settings (SITE_NAME, SITE_URL), not
from the sites framework's default row ("example.com"), and SITE_URL follows PORT."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.sites.models import Site
from django.core import mail
from django.core.management.sql import emit_post_migrate_signal
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from config.settings import site_url
from games.jobs import sweeps
from games.services.tables import table_create, table_join
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent.parent


def _everything_in(message) -> str:
    html = "".join(body for body, _ in getattr(message, "alternatives", []))
    return f"{message.subject}\n{message.from_email}\n{message.body}\n{html}"


def _password_reset_mail(email: str):
    mail.outbox.clear()
    response = Client().post(reverse("account_reset_password"), {"email": email})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    return mail.outbox[0]


def test_an_account_email_names_the_site_from_the_settings_not_example_com(settings):
    UserFactory(username="dora", email="dora@cardtables.test")
    text = _everything_in(_password_reset_mail("dora@cardtables.test"))
    assert "example.com" not in text
    assert f"[{settings.SITE_NAME}]" in text
    assert f"Hello from {settings.SITE_NAME}!" in text
    assert settings.SITE_URL.split("://", 1)[1] in text  # the domain, under the sign-off


def test_the_sign_up_confirmation_names_the_site_too(settings):
    Client().post(
        reverse("account_signup"),
        {
            "email": "lena@cardtables.test",
            "username": "lena",
            "password1": "a long pass phrase 42",
            "password2": "a long pass phrase 42",
        },
    )
    assert len(mail.outbox) == 1
    text = _everything_in(mail.outbox[0])
    assert "example.com" not in text
    assert f"[{settings.SITE_NAME}]" in text


def test_the_site_follows_the_settings_on_every_migrate():
    UserFactory(username="dora", email="dora@cardtables.test")
    with override_settings(SITE_NAME="Kartové stoly", SITE_URL="https://cards.example.org:8443"):
        emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
        site = Site.objects.get_current()
        assert (site.name, site.domain) == ("Kartové stoly", "cards.example.org:8443")
        text = _everything_in(_password_reset_mail("dora@cardtables.test"))
        assert "[Kartové stoly]" in text and "cards.example.org:8443" in text
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    assert Site.objects.get_current().name == "Card Tables"


def test_reminder_links_use_site_url_and_name_the_site(alice, bob):
    with override_settings(SITE_NAME="Kartové stoly", SITE_URL="http://localhost:8111"):
        table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
        table_join(table_id=table.pk, user=bob)
        sweeps.sweep_reminders(timezone.now() + dt.timedelta(hours=2))
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    text = _everything_in(message)
    assert f"http://localhost:8111/t/{table.pk}/" in text
    assert "http://localhost:8111/unsubscribe/" in message.extra_headers["List-Unsubscribe"]
    assert "localhost:8000" not in text
    assert "Kartové stoly" in text


def test_site_url_follows_port_unless_it_is_set():
    assert site_url({}) == "http://localhost:8000"
    assert site_url({"PORT": "8111"}) == "http://localhost:8111"
    assert site_url({"PORT": "8111", "SITE_URL": "https://cards.example.org/"}) == (
        "https://cards.example.org"
    )


def test_the_settings_read_port_in_a_fresh_process():
    env = {k: v for k, v in os.environ.items() if k not in ("SITE_URL", "PYTEST_VERSION")}
    done = subprocess.run(
        [sys.executable, "-c", "from config import settings; print(settings.SITE_URL)"],
        cwd=ROOT,
        env={**env, "DJANGO_DEBUG": "1", "PORT": "8111"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "http://localhost:8111", done.stderr


def test_make_run_passes_its_port_to_site_url():
    env = {k: v for k, v in os.environ.items() if k not in ("SITE_URL", "PORT")}
    done = subprocess.run(
        ["make", "-n", "run", "PORT=8111"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    serve = [line for line in done.stdout.replace("\\\n", " ").splitlines() if "uvicorn" in line]
    assert serve and "http://localhost:8111" in serve[-1] and "--port 8111" in serve[-1]
