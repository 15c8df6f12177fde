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
