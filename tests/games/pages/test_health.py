"""The health check reports the database, Redis and the worker's heartbeat."""

from __future__ import annotations

import time

import pytest
from django.test import Client
from django.urls import reverse

from games.jobs import sweeps
from games.services import health

pytestmark = pytest.mark.django_db


def test_health_is_ok_once_a_sweep_has_run_recently():
    sweeps.sweep_deadlines()
    response = Client().get(reverse("health"))
    assert response.status_code == 200
    data = response.json()
    assert data["ok"] and data["database"]["ok"] and data["redis"]["ok"] and data["worker"]["ok"]


def test_health_fails_when_no_worker_has_swept_for_minutes(monkeypatch, settings):
    settings.REDIS_URL = ""
    monkeypatch.setattr(health, "_local_heartbeat", time.time() - 3600)
    response = Client().get(reverse("health"))
    assert response.status_code == 503
    assert response.json()["worker"]["ok"] is False


def test_health_reports_redis_down(monkeypatch, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    response = Client().get(reverse("health"))
    assert response.status_code == 503
    assert response.json()["redis"]["ok"] is False
