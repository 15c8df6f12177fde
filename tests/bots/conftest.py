from __future__ import annotations

import pytest

from games.bots.base import HARD_BUDGET

TINY_PLAYOUTS = 6


@pytest.fixture(autouse=True)
def tiny_hard_budget(monkeypatch):
    """The hard bot searches a handful of playouts, with no clock: quick and repeatable."""
    monkeypatch.setattr(HARD_BUDGET, "playouts", TINY_PLAYOUTS)
    monkeypatch.setattr(HARD_BUDGET, "seconds", None)
