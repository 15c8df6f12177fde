"""The Gnav bot plays as a sensible person would, from its seat's view alone."""

from __future__ import annotations

import itertools
import random

import pytest

from games.bots.gnav import MATCH_VALUE, GnavBot, match_value
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


# --- the worlds sample_state draws (the generic search), and match values ---------------------


def _decisions(matches: int, every: int = 2) -> list[tuple[object, int]]:
    """States with a real choice from seeded matches between ``GnavBot``s, and who decides."""
    bot, found = GnavBot(), []
    for seed in range(matches):
        state = GNAV.setup(4, 300 + seed)
        while GNAV.outcome(state) is None:
            seat = GNAV.active_seats(state)[0]
            view = GNAV.view(state, seat)
            if len(found) % every == 0 or seed % every == 0:
                found.append((state, seat))
            state = GNAV.apply(state, seat, bot.choose(view, view["legal_actions"], None))
    return found


def _current_deal(log: list[dict]) -> list[dict]:
    return log[max(i for i, event in enumerate(log) if event["type"] == "deal") :]


def test_every_world_drawn_agrees_with_all_the_seat_saw_and_the_public_record():
    """Cards a seat saw (its own, both sides of its trades, refusals, knocks, the stock's
    set-aside cards) are the same in every world; trades only ever took ordinary cards;
    each world's hands are its dealt cards moved by the deal's trades."""
    rng = random.Random(5)
    trades_seen = refusals_seen = 0
    for state, seat in _decisions(40):
        view = GNAV.view(state, seat)
        public = {k: v for k, v in GNAV.view(state, None).items() if k != "log"}
        deal_log = _current_deal(view["log"])
        trades_seen += any(e["type"] == "trade" and e["gave"] for e in deal_log)
        refusals_seen += any(e["type"] in ("pass", "cat", "dragoon") for e in deal_log)
        for _ in range(5):
            world = GNAV.sample_state(view, seat, rng)
            assert GNAV.view(world, seat) == view
            assert {k: v for k, v in GNAV.view(world, None).items() if k != "log"} == public
            data = GNAV.to_json(world)
            faces, hold = data["faces"], list(data["dealt"])
            for event in _current_deal(data["log"])[1:]:
                if event["type"] == "trade":
                    asker, target = event["seat"], event["target"]
                    assert faces[hold[target]] <= 16  # only an ordinary card accepts
                    assert (event["gave"], event["got"]) == (hold[asker], hold[target])
                    hold[asker], hold[target] = hold[target], hold[asker]
                elif event["type"] == "undo":
                    hold = list(data["dealt"])
                elif event["type"] == "knock":
                    assert faces[hold[event["seat"]]] == 1
            for other in data["order"]:
                assert data["hands"][other] == hold[other]
                assert data["fools"][other] == (faces[hold[other]] == 1)
    assert trades_seen > 10 and refusals_seen > 5, "the matches should cover trades and refusals"


def test_the_match_value_grows_with_a_seats_lives_and_shrinks_with_the_others():
    assert match_value([3, 3, 3, 3], 0) == pytest.approx(0.25)
    for mine in (1, 2, 3):  # measured for every way a match can stand before a deal
        for others in itertools.product(range(4), repeat=3):
            if any(others):
                assert (mine, *sorted(others, reverse=True)) in MATCH_VALUE
    assert match_value([0, 1, 2, 3], 0) == 0.0
    for lives in ([1, 2, 3, 3], [2, 2, 3, 1], [1, 1, 1, 0], [2, 3, 0, 0]):
        for seat in range(4):
            if lives[seat] == 0:
                continue
            more = [*lives]
            more[seat] += 1
            if max(more) <= 3:
                assert match_value(more, seat) > match_value(lives, seat)
            other = next((s for s in range(4) if s != seat and lives[s] > 1), None)
            if other is None:
                continue
            fewer = [*lives]
            fewer[other] -= 1
            assert match_value(fewer, seat) > match_value(lives, seat)


def test_a_drawn_worlds_stock_is_in_a_fair_random_order():
    """The stock of a drawn world is the unseen cards in random order: a Fool is turned up
    first as often as any other rank (once, the Fools skipped when dealing the others
    their unknown cards were left at the top: a Fool came first one draw in six)."""
    state = GNAV.setup(4, 11)
    seat = GNAV.active_seats(state)[0]
    view = GNAV.view(state, seat)
    rng = random.Random(2)
    tops = []
    for _ in range(600):
        data = GNAV.to_json(GNAV.sample_state(view, seat, rng))
        tops.append(data["faces"][data["stock"][0]])
    fools = tops.count(1)
    assert fools < 60  # expected about 600 * 2/38 = 32; the skewed order gave about 100
    high = sum(1 for strength in tops if strength >= 10)
    assert 0.5 < high / len(tops) < 0.66  # 12 of the 21 ranks
