"""The Gnav bot plays as a sensible person would, from its seat's view alone."""

from __future__ import annotations

import random

from games.bots.gnav import GnavBot
from games.rules import get_rules

GNAV = get_rules("gnav")
KEEP, ASK, DRAW = {"type": "keep"}, {"type": "ask"}, {"type": "draw"}


def _view(strength: int, *, fools=(), aside=(), seat=0, order=(1, 2, 3, 0)) -> dict:
    return {
        "seat": seat,
        "card": {"id": 5, "rank": strength},
        "order": list(order),
        "fools": list(fools),
        "aside": [{"id": 40 + i, "rank": r} for i, r in enumerate(aside)],
    }


def test_it_keeps_matadors_and_high_cards():
    bot = GnavBot()
    for strength in (16, 17, 18, 19, 20, 21):
        assert bot.choose(_view(strength), [KEEP, ASK], random.Random(0)) == KEEP


def test_it_passes_a_fool_on_and_asks_with_low_cards():
    bot = GnavBot()
    for strength in (1, 2, 3, 4, 5):
        assert bot.choose(_view(strength), [KEEP, ASK], random.Random(0)) == ASK
    assert bot.choose(_view(1), [KEEP, DRAW], random.Random(0)) == DRAW


def test_it_never_asks_a_neighbour_marked_with_a_fool_unless_it_holds_one():
    bot = GnavBot()
    assert bot.choose(_view(3, fools=[1]), [KEEP, ASK], random.Random(0)) == KEEP
    assert bot.choose(_view(1, fools=[0, 1]), [KEEP, ASK], random.Random(0)) == ASK


def test_it_asks_more_boldly_once_the_cats_and_dragoons_are_seen():
    bot = GnavBot()
    middling = 8
    assert bot.choose(_view(middling), [KEEP, ASK], random.Random(0)) == ASK
    careful = GnavBot()
    careful_view = _view(middling)
    assert careful._danger(careful_view, middling) > careful._danger(
        _view(middling, aside=[19, 19, 20]), middling
    )


def test_it_only_ever_plays_legal_actions_in_whole_matches():
    bot = GnavBot()
    for seed in range(30):
        rng = random.Random(seed)
        state = GNAV.setup(4, seed)
        while GNAV.outcome(state) is None:
            seat = GNAV.active_seats(state)[0]
            view = GNAV.view(state, seat)
            action = bot.choose(view, view["legal_actions"], rng)
            assert action in view["legal_actions"]
            state = GNAV.apply(state, seat, action)


def test_it_beats_random_players_more_often_than_its_share():
    """Over seeded matches with one bot and three random players, the bot wins well over 1/4."""
    bot, wins, matches = GnavBot(), 0, 120
    for seed in range(matches):
        rng = random.Random(seed)
        state = GNAV.setup(4, seed)
        bot_seat = seed % 4
        while GNAV.outcome(state) is None:
            seat = GNAV.active_seats(state)[0]
            legal = GNAV.legal_actions(state, seat)
            if seat == bot_seat:
                action = bot.choose(GNAV.view(state, seat), legal, rng)
            else:
                action = rng.choice(legal)
            state = GNAV.apply(state, seat, action)
        wins += GNAV.outcome(state).ranks[bot_seat] == 0
    assert wins / matches > 0.35
