"""``{% legal_action %}``: a board draws a button only for a legal action, found by its fields."""

from __future__ import annotations

from games.templatetags.tables import legal_action


class CountedList(list):
    """A list that counts how often it is read through."""

    reads = 0

    def __iter__(self):
        CountedList.reads += 1
        return super().__iter__()


def test_the_matching_legal_action_is_found_and_nothing_else():
    view = {
        "legal_actions": [
            {"type": "play", "card": 3},
            {"type": "play", "card": 5},
            {"type": "take"},
            {"type": "pick", "cells": [[0, 1], [0, 2]]},
        ]
    }
    assert legal_action(view, "play", card=5) == {"type": "play", "card": 5}
    assert legal_action(view, "play", card=9) is None
    assert legal_action(view, "play", card="5") is None
    assert legal_action(view, "take") == {"type": "take"}
    assert legal_action(view, "pick", cells=[[0, 1], [0, 2]]) == view["legal_actions"][3]
    assert legal_action(view, "pick", cells=[[0, 2], [0, 1]]) is None
    assert legal_action({}, "take") is None
    assert legal_action(None, "take") is None


def test_a_board_asking_once_per_cell_reads_the_legal_actions_once_per_kind_of_question():
    """Slide asks for every card and every edge: that is one lookup each, not a scan each."""
    actions = CountedList(
        {"type": "slide", "card": c, "edge": e} for c in range(4) for e in range(16)
    )
    view = {"legal_actions": actions}
    CountedList.reads = 0
    found = [legal_action(view, "slide", card=c, edge=e) for c in range(5) for e in range(16)]
    assert sum(a is not None for a in found) == 64
    assert legal_action(view, "play", card=1) is None
    assert CountedList.reads == 2  # one per (type, fields asked for)
