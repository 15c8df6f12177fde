"""The tournaments, plugged into games' pages (games/extensions.py), which never import them."""

from __future__ import annotations

from games import extensions
from tournaments import lobby_pages, profile_pages


def register() -> None:
    if profile_pages.profile_panel not in extensions.profile_panels:
        extensions.profile_panels.append(profile_pages.profile_panel)
        extensions.lobby_panels.append(lobby_pages.lobby_panel)
