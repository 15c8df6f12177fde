from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CommunityConfig(AppConfig):
    name = "community"
    verbose_name = _("Players together")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The chat under the board, on the table's socket, in the replay and the lobby's rows:
        # registered with games, which never imports this app (games/extensions.py).
        from community import hooks

        hooks.register()
