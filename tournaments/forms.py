"""The form that creates a tournament: its own settings here, the game's (players a table, time
per move, rated, options) from the lobby's table form (``games.forms.tables``)."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from games.forms.tables import pace_requirement_field
from tournaments.models import MATCH_GAMES, Format


class TournamentForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=80)
    format = forms.ChoiceField(label=_("Format"), choices=Format.choices)
    starts_at = forms.DateTimeField(
        label=_("Starts"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("In your time zone. Sign-up is open until then."),
    )
    rounds = forms.IntegerField(
        label=_("Rounds"),
        min_value=1,
        max_value=30,
        required=False,
        help_text=_("Empty: until done (a round robin's whole schedule, a knockout's final)."),
    )
    min_players = forms.IntegerField(label=_("Fewest players"), min_value=2, max_value=256)
    max_players = forms.IntegerField(label=_("Most players"), min_value=2, max_value=256)
    min_rating = forms.FloatField(
        label=_("Lowest rating to enter"), required=False, min_value=-1000, max_value=1000
    )
    min_finished_games = forms.IntegerField(
        label=_("Finished games of this game to enter"),
        min_value=0,
        max_value=10000,
        initial=0,
        required=False,
    )
    no_vacations = forms.BooleanField(
        label=_("No vacations during it"),
        required=False,
        help_text=_("Players who enter agree to take no vacation while it runs."),
    )
    pace_max_timeouts_per_100 = pace_requirement_field(
        ngettext_lazy(
            "Counted over the last 90 days; a player with fewer than %(moves)d move is always"
            " welcome. Empty: anyone may enter.",
            "Counted over the last 90 days; a player with fewer than %(moves)d moves is always"
            " welcome. Empty: anyone may enter.",
            "moves",
        )
    )
    match_games = forms.TypedChoiceField(
        label=_("Games a match (single elimination)"),
        coerce=int,
        choices=[(n, str(n)) for n in MATCH_GAMES],
        initial=1,
    )
    round_window_days = forms.IntegerField(
        label=_("Days a round lasts (Swiss with round windows)"),
        min_value=1,
        max_value=30,
        required=False,
    )
    start_within_hours = forms.IntegerField(
        label=_("Hours into a round by which its games start"),
        min_value=0,
        max_value=720,
        required=False,
        help_text=_("A game starts when its players are all ready, or at the latest then."),
    )

    def __init__(self, *args: Any, zone: zoneinfo.ZoneInfo, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.zone = zone

    def clean_starts_at(self) -> dt.datetime:
        value: dt.datetime = self.cleaned_data["starts_at"]
        # The browser's datetime-local is the player's wall clock.
        if timezone.is_aware(value):
            value = timezone.make_naive(value, timezone.get_current_timezone())
        return value.replace(tzinfo=self.zone)

    def settings_arguments(self) -> dict[str, Any]:
        """The cleaned form as ``TournamentSettings`` fields (the game's come from its form)."""
        data = self.cleaned_data
        days, hours = data.get("round_window_days"), data.get("start_within_hours")
        return {
            "name": data["name"],
            "format": data["format"],
            "starts_at": data["starts_at"],
            "rounds": data.get("rounds"),
            "min_players": data["min_players"],
            "max_players": data["max_players"],
            "min_rating": data.get("min_rating"),
            "min_finished_games": data.get("min_finished_games") or 0,
            "no_vacations": data["no_vacations"],
            "pace_max_timeouts_per_100": data.get("pace_max_timeouts_per_100"),
            "match_games": data["match_games"],
            "round_window": dt.timedelta(days=days) if days else None,
            "start_within": dt.timedelta(hours=hours) if hours is not None else None,
        }
