from __future__ import annotations

import json
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from games.catalog import playable_games
from games.time_controls import DEFAULT_TIME_PER_MOVE, TIME_PER_MOVE_CHOICES

MAX_ACTION_BYTES = 2000


class TableCreateForm(forms.Form):
    game = forms.ChoiceField(label=_("Game"), choices=())
    num_seats = forms.TypedChoiceField(label=_("Players"), coerce=int, choices=(), initial=2)
    seconds_per_move = forms.TypedChoiceField(
        label=_("Time per move"),
        coerce=int,
        choices=TIME_PER_MOVE_CHOICES,
        initial=DEFAULT_TIME_PER_MOVE,
    )
    rated = forms.BooleanField(
        label=_("Rated"),
        required=False,
        initial=True,
        help_text=_("Rated games count for the leaderboard; friendly ones do not."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        games = playable_games()
        self.fields["game"].choices = [(rules.slug, rules.name) for rules in games]
        low = min(rules.min_players for rules in games)
        high = max(rules.max_players for rules in games)
        self.fields["num_seats"].choices = [(n, str(n)) for n in range(low, high + 1)]


class ActionForm(forms.Form):
    """What a board posts: the action as JSON, and the version of the board it was chosen on."""

    action = forms.CharField(max_length=MAX_ACTION_BYTES)
    version = forms.IntegerField(min_value=0, required=False)

    def clean_action(self) -> Any:
        try:
            return json.loads(self.cleaned_data["action"])
        except ValueError:
            raise forms.ValidationError(_("That move could not be read.")) from None


BOT_LEVEL_CHOICES = [
    ("easy", _("easy")),
    ("medium", _("medium")),
    ("hard", _("hard")),
]


class BotTableForm(forms.Form):
    game = forms.ChoiceField(choices=())
    num_seats = forms.IntegerField(min_value=1, max_value=6)
    level = forms.ChoiceField(label=_("Bots"), choices=BOT_LEVEL_CHOICES, initial="medium")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = [(rules.slug, rules.name) for rules in playable_games()]


def bot_table_seats(rules: Any) -> int:
    """How many seats a table against bots has: the fewest that make a game with bots."""
    return max(2, rules.min_players)
