"""Personal access tokens: what a program signs in to the API with."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Scope(models.TextChoices):
    READ = "read", _("read: your account, your tables and challenges, the streams")
    PLAY = "play", _("play: make moves at your tables")
    CHALLENGE = "challenge", _("challenge: send, accept and decline challenges")


class AccessToken(models.Model):
    """A token is shown once, when it is made; only its SHA-256 is kept (``key_hash``), so the
    database never holds a token that works. Revoked, it answers 401 at once."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens"
    )
    name = models.CharField(_("name"), max_length=60)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=12, editable=False)  # shown in the list, to tell apart
    scopes = models.CharField(max_length=40)  # the Scope values, space-separated
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "revoked_at"], name="token_user_live")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def scope_list(self) -> list[str]:
        return self.scopes.split()

    def allows(self, scope: str) -> bool:
        return scope in self.scope_list
