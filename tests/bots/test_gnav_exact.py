"""The hard Gnav bot works out its best reply over every deal its view allows.

Its play-out works on ranks, so it is checked against the rules engine itself; its list
of worlds is checked against ``Gnav.sample_state``, which draws worlds the same view
allows, one at a time.
"""

from __future__ import annotations

import random

import pytest

from games.bots.gnav import GnavBot, deal_value
from games.bots.gnav_exact import (
    PACK_COUNTS,
    SENSIBLE,
    SURPRISE,
    GnavExactBot,
    action_values,
    likelihood,
    play_out,
    read_deal,
    worlds,
)
from games.rules import get_rules
from games.rules.gnav.state import PASS_ON, GnavState

GNAV = get_rules("gnav")
KEEP, ASK = {"type": "keep"}, {"type": "ask"}


def _decisions(
    matches: int, seed: int, at_random: bool, options: dict | None = None
) -> list[tuple[GnavState, int]]:
    """Every decision of seeded matches (played at random, or by ``GnavBot``s)."""
    bot, found = GnavBot(), []
    for match in range(matches):
        rng = random.Random(seed + match)
        state = GNAV.setup(4, seed + match, options)
        while GNAV.outcome(state) is None:
            seat = GNAV.active_seats(state)[0]
            found.append((state, seat))
            view = GNAV.view(state, seat)
            legal = view["legal_actions"]
            action = rng.choice(legal) if at_random else bot.choose(view, legal, rng)
            state = GNAV.apply(state, seat, action)
    return found


def _true_deal(state: GnavState, seat: int) -> tuple[list[int], list[int]]:
    """The real strengths of the deal's dealt cards, and a stock that can only turn up
    the card the real stock would."""
    dealt = [0] * 4
    for symbol in read_deal(GNAV.view(state, seat)).symbols:
        dealt[symbol] = state.faces[state.dealt[symbol]]
    first = next(state.faces[card] for card in state.stock if state.faces[card] not in PASS_ON)
    stock = [0] * len(PACK_COUNTS)
    stock[first] = 1
    return dealt, stock


@pytest.mark.parametrize(
    ("at_random", "cat_undoes"),
    [(True, True), (False, True), (True, False)],
    ids=["random play", "sensible play", "a Cat undoes nothing"],
)
def test_its_play_out_ends_every_deal_as_the_rules_do(at_random, cat_undoes):
    """Given the real cards, the rank-level play-out leaves exactly the match value that
    ``Gnav.apply`` leaves, for both actions at every decision of whole matches: Cat
    undos, Dragoons, passes to the stock, knock-outs in mid-deal and ends of matches."""
    rng = random.Random(0)
    checked = 0
    options = {"cat_undoes_trades": cat_undoes}
    for state, seat in _decisions(60, 500 if at_random else 700, at_random, options):
        view = GNAV.view(state, seat)
        deal = read_deal(view)
        dealt, stock = _true_deal(state, seat)
        for action in view["legal_actions"]:
            real = deal_value(GNAV, GNAV.apply(state, seat, action), seat, view["deal"], rng)
            assert play_out(deal, dealt, stock, action["type"] != "keep") == pytest.approx(real)
            checked += 1
    assert checked > 1000


def test_a_draw_from_a_whole_stock_is_the_mean_of_each_card_it_could_turn_up():
    """With the real hands and the real stock's strengths, the play-out's value is the
    mean, card by card, of the play-outs whose stock can turn up only that card."""
    checked = 0
    for state, seat in _decisions(20, 2000, at_random=True)[::2]:
        view = GNAV.view(state, seat)
        deal = read_deal(view)
        dealt, _ = _true_deal(state, seat)
        stock = [0] * len(PACK_COUNTS)
        for card in state.stock:
            stock[state.faces[card]] += 1
        cards = [s for s in range(len(stock)) if s not in PASS_ON for _ in range(stock[s])]
        for request in (False, True):
            one_by_one = []
            for strength in cards:
                only = [0] * len(PACK_COUNTS)
                only[strength] = 1
                one_by_one.append(play_out(deal, dealt, only, request))
            whole = play_out(deal, dealt, stock, request)
            assert whole == pytest.approx(sum(one_by_one) / len(one_by_one))
            checked += 1
    assert checked > 100


def test_every_world_it_lists_agrees_with_what_the_seat_saw():
    """The real deal is among its worlds; every world keeps the cards the seat saw, deals
    no unseen Fool and an ordinary card to every seat that was traded with, and leaves
    the stock the rest of the pack."""
    for state, seat in _decisions(15, 900, at_random=True)[::3]:
        view = GNAV.view(state, seat)
        deal = read_deal(view)
        real, _ = _true_deal(state, seat)
        found = False
        for weight, dealt, stock in worlds(deal):
            assert weight > 0
            for symbol, strength in deal.known.items():
                assert dealt[symbol] == strength
            for symbol in deal.symbols:
                if symbol not in deal.known:
                    assert dealt[symbol] != 1
                if symbol in deal.receivers:
                    assert dealt[symbol] <= 16
            in_deal = [dealt[symbol] for symbol in deal.symbols]
            assert all(
                stock[s] == PACK_COUNTS[s] - in_deal.count(s) for s in range(len(PACK_COUNTS))
            )
            found = found or [dealt[s] for s in deal.symbols] == [real[s] for s in deal.symbols]
        assert found


def test_its_values_agree_with_worlds_drawn_one_at_a_time():
    """What it works out exactly is what ``sample_state``'s worlds, each played on by the
    rules engine and weighed by the same likelihood, give on average."""
    rng = random.Random(3)
    positions = _decisions(12, 40, at_random=False)
    compared = 0
    for state, seat in positions[5::9][:6]:
        view = GNAV.view(state, seat)
        deal = read_deal(view)
        exact = action_values(view)
        sums, weights = [0.0, 0.0], 0.0
        for _ in range(1500):
            world = GNAV.sample_state(view, seat, rng)
            dealt = [0] * 4
            for symbol in deal.symbols:
                dealt[symbol] = world.faces[world.dealt[symbol]]
            weight = likelihood(deal, dealt)
            weights += weight
            for i, action in enumerate(view["legal_actions"]):
                after = GNAV.apply(world, seat, action)
                sums[i] += weight * deal_value(GNAV, after, seat, view["deal"], rng)
        drawn = [total / weights for total in sums]
        kinds = [action["type"] != "keep" for action in view["legal_actions"]]
        for value, request in zip(drawn, kinds, strict=True):
            assert exact[int(request)] == pytest.approx(value, abs=0.03)
        compared += 1
    assert compared == 6


def test_the_others_keeps_and_asks_weigh_the_worlds_as_sensible_play_explains_them():
    """In matches of ``GnavBot``s the real deal explains every keep and ask; a world in
    which a seat that kept holds a card it would have asked with is a surprise."""
    tested = 0
    for state, seat in _decisions(20, 60, at_random=False):
        deal = read_deal(GNAV.view(state, seat))
        real, _ = _true_deal(state, seat)
        assert likelihood(deal, real) == pytest.approx((1 - SURPRISE) ** len(deal.decisions))
        kept = [d for d in deal.decisions if not d[3] and not d[2] and d[0] not in deal.known]
        if not kept:
            continue
        symbol, dealer, left_fool, _ = kept[0]
        low = next(s for s in range(2, 17) if SENSIBLE[(s, dealer, left_fool)])
        surprised = list(real)
        surprised[symbol] = low
        expected = SURPRISE * (1 - SURPRISE) ** (len(deal.decisions) - 1)
        assert likelihood(deal, surprised) == pytest.approx(expected)
        tested += 1
    assert tested > 20


def test_it_keeps_a_cuckoo_and_passes_a_fool_on():
    """The first to act in a full deal keeps a Cuckoo and asks with a Fool (unless the
    next seat holds the other Fool)."""
    bot, rng, checked = GnavExactBot(), random.Random(0), set()
    for state, seat in _decisions(60, 1000, at_random=False):
        view = GNAV.view(state, seat)
        deal = read_deal(view)
        strength = view["card"]["rank"]
        if len(deal.symbols) != 4 or deal.symbols[0] != seat:
            continue
        if strength == 21:
            assert bot.choose(view, view["legal_actions"], rng) == KEEP
            checked.add("cuckoo")
        elif strength == 1 and view["order"][1] not in view["fools"]:
            assert bot.choose(view, view["legal_actions"], rng) == ASK
            checked.add("fool")
    assert checked == {"cuckoo", "fool"}


def test_a_dealer_who_saw_three_keeps_draws_with_a_six():
    """Sensible players keep a VI or better, so a dealer holding a VI after the other three
    kept is probably the lowest: it draws, where ``GnavBot`` (which asks with a V or
    less) keeps."""
    rng, found = random.Random(0), 0
    for seed in range(3000):
        state = GNAV.setup(4, seed)
        faces, dealer = state.faces, state.dealer
        others = [seat for seat in state.order if seat != dealer]
        if faces[state.hands[dealer]] != 10 or any(faces[state.hands[s]] < 10 for s in others):
            continue
        for seat in others:
            state = GNAV.apply(state, seat, KEEP)
        view = GNAV.view(state, dealer)
        legal = view["legal_actions"]
        assert GnavBot().choose(view, legal, rng) == KEEP
        assert GnavExactBot().choose(view, legal, rng) == {"type": "draw"}
        found += 1
    assert found >= 3


def test_it_weighs_each_way_the_unseen_cards_can_lie_once():
    """The first to act in a full deal sees one card, its own. The other three are any of
    the 20 strengths above a Fool (a Fool knocks), none three times (two copies in the
    pack), and the seat's own strength at most once more: 20**3 - 19 - (3 * 19 + 1) ways,
    or 20**3 - 20 when it holds the Fool itself. No decision weighs more."""
    bot, rng, first = GnavExactBot(), random.Random(0), 0
    for state, seat in _decisions(12, 1500, at_random=False):
        view = GNAV.view(state, seat)
        bot.choose(view, view["legal_actions"], rng)
        assert bot.last_iterations <= 20**3
        deal = read_deal(view)
        if len(deal.symbols) == 4 and deal.symbols[0] == seat and len(deal.known) == 1:
            fool = view["card"]["rank"] == 1
            assert bot.last_iterations == (20**3 - 20 if fool else 20**3 - 19 - (3 * 19 + 1))
            first += 1
    assert first > 5


def test_it_reads_nothing_but_the_view(monkeypatch):
    """It never draws or plays a world through the rules engine, and a view alone fixes
    its answer: the same view, whatever the random generator, gets the same action."""

    def forbidden(*args, **kwargs):
        raise AssertionError("the exact bot must not touch the rules engine")

    positions = _decisions(3, 77, at_random=True)
    views = [GNAV.view(state, seat) for state, seat in positions[::8]]
    monkeypatch.setattr(type(GNAV), "sample_state", forbidden)
    monkeypatch.setattr(type(GNAV), "apply", forbidden)
    bot = GnavExactBot()
    for view in views:
        chosen = {str(bot.choose(view, view["legal_actions"], random.Random(n))) for n in range(3)}
        assert len(chosen) == 1
