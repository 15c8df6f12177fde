"""The tournaments, plugged into games' pages (games/extensions.py), which never import them."""

from __future__ import annotations

from games import extensions
from games.jobs import embedded
from games.services.events import table_events
from tournaments import jobs, lobby_pages, profile_pages
from tournaments.services.entries import vacation_refusal
from tournaments.services.rounds import sweep_tournaments


def register() -> None:
    if profile_pages.profile_panel not in extensions.profile_panels:
        extensions.profile_panels.append(profile_pages.profile_panel)
        extensions.lobby_panels.append(lobby_pages.lobby_panel)
        embedded.extra.append(sweep_tournaments)
        extensions.vacation_refusals.append(vacation_refusal)
    # A game's end counts for its tournament; beat's sweep runs the rest.
    table_events.connect(jobs.on_table_events, dispatch_uid="tournament-results")
