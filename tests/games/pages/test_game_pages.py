"""A page per game (facts, summary, play now, rules, best players), the lobby's game cards,
the rules panel at every table and the one-line reason a seated player cannot act."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.template.loader import get_template
from django.urls import reverse
from django.utils import timezone

from games.catalog import playable_games
from games.models import Rating, Table
from games.rules import get_rules
from games.selectors.ratings import PROVISIONAL_GAMES
from tests.conftest import client_for
from tests.factories import UserFactory
from tests.games.rated_games import start_game

pytestmark = pytest.mark.django_db

SLUGS = [rules.slug for rules in playable_games()]
# Session and user, then the game's best players.
GAME_PAGE_QUERIES = 3


def page(slug: str, user=None) -> str:
    response = client_for(user).get(reverse("game_page", args=[slug]))
    assert response.status_code == 200
    return response.content.decode()


# -- the game page -------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_a_visitor_reads_the_facts_the_summary_and_the_rules(slug):
    rules = get_rules(slug)
    html = page(slug)
    assert f"<h1>{rules.name}</h1>" in html
    assert 'class="game-facts"' in html and "Complexity" in html
    low, high = rules.duration_minutes
    assert f"{low}\u2013{high} min" in html
    assert f"{rules.complexity} of 5" in html
    assert 'class="game-summary"' in html
    assert f'class="rules rules-{slug}"' in html
    assert "Sign in to open a table or play against bots." in html
    assert reverse("play_against_bots") not in html
    assert reverse("leaderboard", args=[slug]) in html


@pytest.mark.parametrize("slug", SLUGS)
def test_a_player_can_play_now_from_the_game_page(slug, alice):
    html = page(slug, alice)
    assert f'action="{reverse("play_against_bots")}"' in html
    assert f'action="{reverse("table_create")}"' in html
    assert f'name="game" value="{slug}"' in html
    assert f'name="{slug}-num_seats"' in html


def test_the_rules_show_the_real_card_art():
    assert 'class="card dn-support v8"' in page("district-noir")
    assert 'class="gn-card gn-face gn-r21' in page("gnav")
    assert "sl-cell sl-up sl-v7 sl-gone" in page("slide")
    assert 'class="pc-card pc-building pc-k-civic' in page("point-city")


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_brings_its_summary_rules_and_facts(slug):
    """What a game adds for its page, beside its board: templates/games/<slug>/about.html and
    rules.html, and its length and complexity on the rules class."""
    get_template(f"games/{slug}/about.html")
    get_template(f"games/{slug}/rules.html")
    rules = get_rules(slug)
    low, high = rules.duration_minutes
    assert 0 < low <= high
    assert 1 <= rules.complexity <= 5


def test_an_unknown_game_has_no_page(client):
    assert client.get("/games/chess/").status_code == 404


def rate(user, game: str, ordinal: float, games: int = PROVISIONAL_GAMES) -> Rating:
    return Rating.objects.create(
        user=user,
        game=game,
        mu=ordinal + 10,
        sigma=10 / 3,
        ordinal=ordinal,
        games_played=games,
        last_played=timezone.now(),
    )


def test_nobody_is_listed_before_the_first_rated_game():
    assert "Nobody has played a rated game yet." in page("slide")


def test_the_five_best_players_are_listed_established_before_provisional(make_user):
    for n in range(6):
        rate(make_user(username=f"pro{n}"), "slide", ordinal=10.0 + n)
    rate(make_user(username="newcomer"), "slide", ordinal=99.0, games=1)
    rate(make_user(username="elsewhere"), "gnav", ordinal=50.0)
    html = page("slide")
    shown = [f"pro{n}" for n in (5, 4, 3, 2, 1)]
    positions = [html.index(f"/players/{name}/") for name in shown]
    assert positions == sorted(positions)
    assert "/players/pro0/" not in html
    assert "/players/newcomer/" not in html
    assert "/players/elsewhere/" not in html
    assert "15.0" in html


def test_provisional_players_fill_a_short_leaderboard(make_user):
    rate(make_user(username="veteran"), "gnav", ordinal=1.0)
    rate(make_user(username="rookie"), "gnav", ordinal=20.0, games=2)
    html = page("gnav")
    assert html.index("/players/veteran/") < html.index("/players/rookie/")
    assert "badge provisional" in html


@pytest.mark.parametrize("ratings", [0, 12])
def test_the_game_page_costs_the_same_with_or_without_ratings(
    alice, ratings, django_assert_max_num_queries
):
    for n in range(ratings):
        rate(UserFactory(), "district-noir", ordinal=float(n))
    client = client_for(alice)
    with django_assert_max_num_queries(GAME_PAGE_QUERIES):
        response = client.get(reverse("game_page", args=["district-noir"]))
    assert response.status_code == 200


# -- the lobby -----------------------------------------------------------------------------------


def test_the_lobby_shows_each_games_facts_and_links_to_its_page(client):
    html = client.get(reverse("lobby")).content.decode()
    for rules in playable_games():
        assert f'href="{reverse("game_page", args=[rules.slug])}"' in html
        assert f"{rules.complexity} of 5" in html
    assert html.count('class="game-facts"') == len(SLUGS)


# -- the rules at the table ----------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_every_table_has_a_rules_panel_outside_the_board(slug, alice):
    rules = get_rules(slug)
    table = start_game(alice, *[UserFactory() for _ in range(rules.min_players - 1)], game=slug)
    html = client_for(alice).get(reverse("table_detail", args=[table.pk])).content.decode()
    panel = html.index('<details class="rules-panel" id="rules-panel">')
    assert panel < html.index('id="board"')
    assert f'class="rules rules-{slug}"' in html[panel : html.index('id="board"')]
    assert "js/rules_panel.js" in html


def test_the_board_update_leaves_the_rules_panel_alone(running_table, alice):
    response = client_for(alice).get(
        reverse("table_detail", args=[running_table.pk]), HTTP_HX_REQUEST="true"
    )
    assert b"rules-panel" not in response.content


# -- why a seat cannot act -----------------------------------------------------------------------


def table_in(slug: str, state: Any, players: int) -> tuple[Table, list]:
    """A running table of ``players`` users whose state is ``state`` (a rules state)."""
    users = [UserFactory() for _ in range(players)]
    table = start_game(*users, game=slug)
    table.state = get_rules(slug).to_json(state)
    table.save(update_fields=["state"])
    return table, users


def board_for(table: Table, user) -> str:
    response = client_for(user).get(
        reverse("table_detail", args=[table.pk]), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    return response.content.decode()


def play_until(slug: str, players: int, done: Callable[[Any], bool], choose, seed: int = 0) -> Any:
    """A state reached by ``choose(state, seat, actions)`` moves until ``done(state)``."""
    rules = get_rules(slug)
    state = rules.setup(players, seed)
    for _ in range(2000):
        if done(state):
            return state
        seat = rules.active_seats(state)[0]
        state = rules.apply(state, seat, choose(state, seat, rules.legal_actions(state, seat)))
    raise AssertionError("the situation never came up")


def test_district_noir_says_you_already_took_this_round():
    rules = get_rules("district-noir")
    state = rules.setup(2, 1)
    first = state.first
    state = rules.apply(state, first, {"type": "take"})
    state = rules.apply(state, 1 - first, rules.legal_actions(state, 1 - first)[0])
    table, users = table_in("district-noir", state, 2)
    assert "You already took this round: play a card." in board_for(table, users[first])
    assert "why-not" not in board_for(table, users[1 - first])


def test_district_noir_says_an_empty_hand_must_take():
    rules = get_rules("district-noir")

    def plays_first(state, seat, actions):
        wanted = "play" if seat == state.first else "take"
        return next((a for a in actions if a["type"] == wanted), actions[0])

    state = play_until(
        "district-noir",
        2,
        lambda s: not s.hands[s.first] and rules.active_seats(s) == [s.first],
        plays_first,
    )
    table, users = table_in("district-noir", state, 2)
    assert "Your hand is empty: you must take." in board_for(table, users[state.first])
    assert "why-not" not in board_for(table, None)


def test_slide_says_how_many_players_are_still_choosing():
    rules = get_rules("slide")
    state = rules.apply(rules.setup(3, 2), 0, {"type": "pick", "row": 0, "col": 0})
    table, users = table_in("slide", state, 3)
    assert "Waiting for 2 more players to choose." in board_for(table, users[0])
    assert "why-not" not in board_for(table, users[1])


def test_slide_says_when_you_slide_later_or_have_slid():
    rules = get_rules("slide")
    state = rules.setup(2, 3)
    for seat in (0, 1):
        state = rules.apply(state, seat, {"type": "pick", "row": 1, "col": 1})
    first = state.turn
    table, users = table_in("slide", state, 2)
    assert "You slide later this round, in the order of play." in board_for(table, users[1 - first])
    state = rules.apply(state, first, rules.legal_actions(state, first)[0])
    table, users = table_in("slide", state, 2)
    assert "You have slid your card this round" in board_for(table, users[first])


def test_gnav_says_who_rests_and_who_is_out():
    rng = random.Random(4)
    rules = get_rules("gnav")
    resting = play_until(
        "gnav",
        4,
        lambda s: bool(s.resting) and s.turn is not None,
        lambda s, seat, actions: rng.choice(actions),
        seed=5,
    )
    table, users = table_in("gnav", resting, 4)
    assert "You are resting this deal (you held the Fool)." in board_for(
        table, users[resting.resting[0]]
    )
    out = play_until(
        "gnav",
        4,
        lambda s: 0 in s.lives and s.turn is not None,
        lambda s, seat, actions: rng.choice(actions),
        seed=6,
    )
    table, users = table_in("gnav", out, 4)
    assert "You are out of the match." in board_for(table, users[out.lives.index(0)])
    assert rules.outcome(out) is None


def test_gnav_says_your_turn_in_the_deal_has_passed():
    rules = get_rules("gnav")
    state = rules.setup(4, 7)
    first = state.turn
    state = rules.apply(state, first, {"type": "keep"})
    table, users = table_in("gnav", state, 4)
    assert "Your turn in this deal has passed" in board_for(table, users[first])


def test_point_city_asks_for_the_civic_token_first():
    rng = random.Random(8)
    state = play_until(
        "point-city",
        2,
        lambda s: s.phase == "civic",
        lambda s, seat, actions: next(
            (a for a in actions if a["type"] == "take" and _builds(s, a)), rng.choice(actions)
        ),
        seed=9,
    )
    table, users = table_in("point-city", state, 2)
    assert "Choose a civic token first" in board_for(table, users[state.current])


def _builds(state, action) -> bool:
    return any(state.up[r * 4 + c] for r, c in action["cells"])


def test_point_city_explains_a_spent_flip_and_buildings_it_cannot_pay_for():
    rules = get_rules("point-city")
    for seed in range(40):
        state = rules.setup(2, seed)
        seat = state.current
        flip = next(a for a in rules.legal_actions(state, seat) if a["type"] == "flip")
        state = rules.apply(state, seat, flip)
        view = rules.view(state, seat)
        offered = [
            cell for a in view["legal_actions"] if a["type"] == "take" for cell in a["cells"]
        ]
        if flip["cell"] not in offered:
            break
    else:
        pytest.skip("no seed gave a building too dear to take")
    table, users = table_in("point-city", state, 2)
    html = board_for(table, users[seat])
    assert "You have flipped a card this turn: now take two cards." in html
    assert "You cannot pay for these buildings yet" in html
    name = view["market"][flip["cell"][0]][flip["cell"][1]]["card"]["building"]["name"]
    assert f'<span class="why-not-item">{name}</span>' in html
