"""The tournaments, plugged into games' pages (games/extensions.py), which never import them."""

from __future__ import annotations

from accounts.closing import closing_step_register
from accounts.export import export_section_register
from games import extensions
from games.jobs import embedded
from games.services.events import table_events
from tournaments import jobs, lobby_pages, profile_pages, table_pages
from tournaments.selectors.account_export import tournaments_export
from tournaments.selectors.calendar import tournament_calendar_events
from tournaments.services.account_closing import player_tournaments_close
from tournaments.services.entries import vacation_refusal
from tournaments.services.rounds import sweep_tournaments


def register() -> None:
    if profile_pages.profile_panel not in extensions.profile_panels:
        extensions.profile_panels.append(profile_pages.profile_panel)
        extensions.lobby_panels.append(lobby_pages.lobby_panel)
        extensions.table_panels.insert(0, table_pages.table_panel)
        embedded.extra.append(sweep_tournaments)
        extensions.vacation_refusals.append(vacation_refusal)
        extensions.calendar_events.append(tournament_calendar_events)
    # A game's end counts for its tournament; beat's sweep runs the rest.
    table_events.connect(jobs.on_table_events, dispatch_uid="tournament-results")
    # A player's data: their tournaments in the export, and out of them when the account closes.
    export_section_register("tournaments", tournaments_export)
    closing_step_register(player_tournaments_close)
