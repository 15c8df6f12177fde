from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = _("API")

    def ready(self) -> None:
        from accounts.closing import closing_step_register
        from accounts.export import export_section_register
        from api import live
        from api.services import tokens_close, tokens_export
        from games.services.events import table_events

        table_events.connect(live.on_table_events, dispatch_uid="api-streams")
        closing_step_register(tokens_close)
        export_section_register("api", tokens_export)
