"""Reading a move a player sent (a form field now, a websocket frame later): one function.

Actions are small flat dicts; anything deeply nested, malformed or oversized is refused
with a sentence, whatever the parser would have done with it.
"""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from games.forms.tables import MAX_ACTION_BYTES, MAX_ACTION_DEPTH, ActionForm, parse_action
from games.models import Move, Table
from games.rules import get_rules
from tests.conftest import client_for

DEEP = [
    "[" * 999 + "]" * 999,
    '{"a":' * 300 + "1" + "}" * 300,
    "[" * 100_000,  # unclosed: json.loads never gets this far, nor must the check
    '[{"a": [' * 200 + "]}]" * 200,
]
MALFORMED = [
    "",
    "abc",
    "[1,",
    "{'type': 'play'}",
    "\x00",
    "NaN",
    "[Infinity]",
    "[1e999]",
    "1" * 5000,
]


@pytest.mark.parametrize("text", DEEP, ids=["arrays", "objects", "unclosed", "mixed"])
def test_deep_nesting_is_refused_with_a_sentence(text):
    with pytest.raises(ValueError, match="could not be read"):
        parse_action(text)


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_text_is_refused_with_a_sentence(text):
    with pytest.raises(ValueError, match="could not be read"):
        parse_action(text)


def test_what_is_not_text_is_refused_too():
    for value in (None, 17, b"\xff\xfe", ["type"]):
        with pytest.raises(ValueError, match="could not be read"):
            parse_action(value)


def test_an_oversized_action_is_refused_even_without_the_form():
    with pytest.raises(ValueError, match="could not be read"):
        parse_action(json.dumps({"type": "play", "card": "x" * MAX_ACTION_BYTES}))


def test_brackets_inside_strings_do_not_count_as_nesting():
    text = json.dumps({"type": "say", "text": "[" * 500 + "{" * 500})
    assert parse_action(text) == {"type": "say", "text": "[" * 500 + "{" * 500}


def test_every_legal_action_of_every_game_reads_back_unchanged():
    """The depth limit leaves room for the deepest real action (Point City's cells)."""
    deepest = '{"type": "take", "cells": [[0, 1], [0, 2]], "pay": {"wood": 1}}'
    assert parse_action(deepest)["cells"] == [[0, 1], [0, 2]]
    assert parse_action("[" * MAX_ACTION_DEPTH + "]" * MAX_ACTION_DEPTH) is not None
    for slug, seats in [("district-noir", 2), ("slide", 3), ("gnav", 4), ("point-city", 2)]:
        rules = get_rules(slug)
        state = rules.setup(seats, 7)
        seat = rules.active_seats(state)[0]
        for action in rules.legal_actions(state, seat):
            assert parse_action(json.dumps(action)) == action


def test_the_form_refuses_deep_nesting_as_unreadable():
    form = ActionForm({"action": "[" * 999 + "]" * 999, "version": "1"})
    assert not form.is_valid()
    assert "could not be read" in str(form.errors["action"])


@pytest.mark.django_db
@pytest.mark.parametrize("where", ["running", "missing"])
def test_posting_a_deeply_nested_move_is_a_4xx_and_plays_nothing(running_table, alice, where):
    """A signed-in player posting 999 nested arrays got a 500 (RecursionError)."""
    table_id = running_table.pk if where == "running" else 987654321
    version = Table.objects.get(pk=running_table.pk).version
    response = client_for(alice).post(
        reverse("table_act", args=[table_id]),
        {"action": "[" * 999 + "]" * 999, "version": version},
        HTTP_HX_REQUEST="true",
    )
    assert 400 <= response.status_code < 500
    if where == "running":
        assert b"could not be read" in response.content
    assert Move.objects.count() == 0
    assert Table.objects.get(pk=running_table.pk).version == version
