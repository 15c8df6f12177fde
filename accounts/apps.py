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
        self._sessions_ready()
        self._mail_stops_ready()

    def _mail_stops_ready(self) -> None:
        """A confirmed address of the player's own starts their stopped e-mail again."""
        from allauth.account import signals as account

        from accounts.mail_stops import address_changed, address_confirmed

        account.email_confirmed.connect(address_confirmed, dispatch_uid="accounts.mail_confirmed")
        account.email_changed.connect(address_changed, dispatch_uid="accounts.mail_changed")

    def _sessions_ready(self) -> None:
        """A sign-in's session is tracked; a new way in ends the other devices' sessions."""
        from allauth.account import signals as account
        from allauth.mfa import signals as mfa

        from accounts import jobs  # noqa: F401  (registers the sessions' sweep with Celery)
        from accounts.sessions import signed_in, way_in_changed

        account.user_logged_in.connect(signed_in, dispatch_uid="accounts.session_signed_in")
        for signal in (
            account.password_changed,
            account.password_set,
            account.password_reset,
            account.email_added,
            account.email_changed,
            mfa.authenticator_added,
        ):
            signal.connect(way_in_changed, dispatch_uid=f"accounts.way_in_changed.{id(signal)}")
