"""What a challenge asks besides the table's own settings (``games.forms.TableCreateForm``): who
else is invited, for a game of more than two, and the bots' level for the seats left open."""

from __future__ import annotations

import re

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import User
from community.models import ChallengeInvite
from games.forms.tables import BOT_LEVEL_CHOICES

MAX_NAMES_CHARS = 400


class ChallengeExtraForm(forms.Form):
    others = forms.CharField(
        label=_("Also invite"),
        required=False,
        max_length=MAX_NAMES_CHARS,
        help_text=_("Their user names, separated by commas or spaces."),
    )
    bot_level = forms.ChoiceField(
        label=_("Bots in the seats nobody is invited to"),
        required=False,
        choices=[("", _("none: every seat is invited")), *BOT_LEVEL_CHOICES],
    )

    def other_names(self) -> list[str]:
        return [name for name in re.split(r"[\s,;]+", self.cleaned_data["others"]) if name]


class DeclineForm(forms.Form):
    reason = forms.ChoiceField(label=_("Reason"), choices=ChallengeInvite.Reason.choices)


class ChallengeSettingsForm(forms.ModelForm):
    """Who may challenge the player [lichess]."""

    class Meta:
        model = User
        fields = ["challenges_from", "challenge_rating_range"]
