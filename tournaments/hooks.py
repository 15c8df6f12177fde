"""The tournaments, plugged into games' pages (games/extensions.py), which never import them."""

from __future__ import annotations

from games import extensions
from tournaments import profile_pages


def register() -> None:
    if profile_pages.profile_panel not in extensions.profile_panels:
        extensions.profile_panels.append(profile_pages.profile_panel)
