from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from accounts.models import User
        from accounts.prefs import forget_prefs
        from accounts.sites import sync_site

        post_migrate.connect(sync_site, sender=self, dispatch_uid="accounts.sync_site")
        post_save.connect(forget_prefs, sender=User, dispatch_uid="accounts.forget_prefs")
