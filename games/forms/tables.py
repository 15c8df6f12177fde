from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from games.bots import BOT_LEVELS, DEFAULT_BOT_LEVEL
from games.catalog import playable_games
from games.rules import Rules
from games.selectors.pace import MOST_TIMEOUTS_PER_100, PACE_MIN_MOVES
from games.time_controls import DEFAULT_TIME_PER_MOVE, TIME_PER_MOVE_CHOICES

MAX_ACTION_BYTES = 2000
# Actions are small flat dicts (the deepest, Point City's "take", nests three levels).
MAX_ACTION_DEPTH = 6


class UnreadableAction(ValueError):
    """A move that is not a small JSON value; its message is a sentence for the player."""


def _nesting_depth(text: str) -> int:
    """How deep the brackets of a JSON text nest, outside strings; counted, not recursed."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _finite_float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError("not a finite number")
    return number


def parse_action(text: Any) -> Any:
    """The action a player sent as JSON text, or ``UnreadableAction``: whatever the text.

    The nesting is bounded before ``json.loads`` sees the text, since the parser recurses
    once per level (999 nested arrays were a RecursionError, a 500); every other failure
    of the parser (bad syntax, NaN, Infinity, an over-long integer) is refused the same way.
    """
    unreadable = UnreadableAction(_("That move could not be read."))
    if not isinstance(text, str) or len(text) > MAX_ACTION_BYTES:
        raise unreadable
    if _nesting_depth(text) > MAX_ACTION_DEPTH:
        raise unreadable
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except (ValueError, TypeError, RecursionError, MemoryError):
        raise unreadable from None


class TableCreateForm(forms.Form):
    """Opens a table of one game: its seat range, a time per move, rated or not, its options."""

    num_seats = forms.TypedChoiceField(label=_("Players"), coerce=int, choices=())
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

    def __init__(self, *args: Any, rules: Rules, **kwargs: Any) -> None:
        kwargs.setdefault("prefix", rules.slug)
        super().__init__(*args, **kwargs)
        self.rules = rules
        seats = range(rules.min_players, rules.max_players + 1)
        num_seats = self.fields["num_seats"]
        assert isinstance(num_seats, forms.TypedChoiceField)  # as declared above
        num_seats.choices = [(n, str(n)) for n in seats]
        num_seats.initial = max(2, rules.min_players)
        for name, default in rules.default_options.items():
            label = _(rules.option_labels.get(name, name))
            choices = rules.option_choices.get(name)
            if choices:
                coerce: Callable[[Any], Any] = type(default)  # the values' type, from the default
                self.fields[f"option_{name}"] = forms.TypedChoiceField(
                    label=label,
                    coerce=coerce,
                    choices=[(value, _(text)) for value, text in choices],
                    initial=default,
                )
            elif isinstance(default, bool):
                self.fields[f"option_{name}"] = forms.BooleanField(
                    label=label, required=False, initial=default
                )

    def table_arguments(self) -> dict[str, Any]:
        """The cleaned form as keyword arguments for ``services.table_create``."""
        data = self.cleaned_data
        options = {
            name: data[f"option_{name}"]
            for name in self.rules.default_options
            if f"option_{name}" in data
        }
        return {
            "game": self.rules.slug,
            "num_seats": data["num_seats"],
            "seconds_per_move": data["seconds_per_move"],
            "rated": data["rated"],
            "options": options,
        }


def pace_requirement_field(help_text: Any) -> forms.IntegerField:
    """The pace a table's or tournament's creator may require: fewer than N timeouts per 100
    moves; ``help_text`` (a lazy plural) says who is welcome anyway."""
    return forms.IntegerField(
        label=_("Require fewer than N timeouts per 100 moves"),
        min_value=1,
        max_value=MOST_TIMEOUTS_PER_100,
        required=False,
        help_text=help_text % {"moves": PACE_MIN_MOVES},
    )


class OpenTableForm(TableCreateForm):
    """A table opened in the lobby, for anyone to join: its settings, and a pace its creator
    may require of who joins (a challenge or a tournament seats its players otherwise)."""

    pace_max_timeouts_per_100 = pace_requirement_field(
        ngettext_lazy(
            "Counted over the last 90 days; a player with fewer than %(moves)d move is always"
            " welcome. Empty: anyone may join.",
            "Counted over the last 90 days; a player with fewer than %(moves)d moves is always"
            " welcome. Empty: anyone may join.",
            "moves",
        )
    )

    def __init__(self, *args: Any, rules: Rules, **kwargs: Any) -> None:
        super().__init__(*args, rules=rules, **kwargs)
        # Last, after the game's own options.
        self.fields["pace_max_timeouts_per_100"] = self.fields.pop("pace_max_timeouts_per_100")

    def table_arguments(self) -> dict[str, Any]:
        required = self.cleaned_data.get("pace_max_timeouts_per_100")
        return {**super().table_arguments(), "pace_max_timeouts_per_100": required}


class ActionForm(forms.Form):
    """What a board posts: the action as JSON, and the version of the board it was chosen on."""

    action = forms.CharField(max_length=MAX_ACTION_BYTES)
    version = forms.IntegerField(min_value=0, required=False)

    def clean_action(self) -> Any:
        try:
            return parse_action(self.cleaned_data["action"])
        except UnreadableAction as exc:
            raise forms.ValidationError(str(exc)) from None


BOT_LEVEL_CHOICES = [(level, _(level)) for level in BOT_LEVELS]


class BotTableForm(forms.Form):
    game = forms.ChoiceField(choices=())
    num_seats = forms.IntegerField(min_value=1, max_value=6)
    level = forms.ChoiceField(label=_("Bots"), choices=BOT_LEVEL_CHOICES, initial=DEFAULT_BOT_LEVEL)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        game = self.fields["game"]
        assert isinstance(game, forms.ChoiceField)  # as declared above
        game.choices = [(rules.slug, rules.name) for rules in playable_games()]


def bot_table_seats(rules: Any) -> int:
    """How many seats a table against bots has: the fewest that make a game with bots."""
    return max(2, rules.min_players)
