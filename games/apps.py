from django.apps import AppConfig
from django.core.signals import request_started
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # The catalog registers the games (and their rules); the checks name what one lacks.
        from games import checks  # noqa: F401
        from games.jobs import embedded, tasks
        from games.live import broadcast
        from games.services.events import table_events

        # The upper layers hear of every committed change (see games/services/events.py).
        table_events.connect(broadcast.on_table_events, dispatch_uid="live-push")
        table_events.connect(tasks.on_table_events, dispatch_uid="bot-turns")

        # A player's data: their games in the export, their seats when the account closes.
        from accounts.closing import closing_step_register
        from accounts.export import export_section_register
        from games.selectors.account_export import games_export
        from games.services.account_closing import player_games_close

        export_section_register("games", games_export)
        closing_step_register(player_games_close)

        # On the embedded default, the process that serves runs the sweeps: from its first
        # request, so no management command or worker does (games/jobs/embedded.py).
        request_started.connect(embedded.start_when_serving, dispatch_uid="embedded-sweeps")
