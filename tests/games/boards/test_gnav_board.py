"""The Gnav table page: the board, the log sentences and the end screen.

The board is a public part (public.html, from ``view(state, None)``: the same bytes for
every page) and a seat's private part (private.html, from ``view(state, seat)``: its own
card and its two choices). These tests check that every seat and a spectator can read it
at any point of a match, that the public part is the same for all and depends on no
hidden card, that only the seat to act gets the two buttons, that gnav.css seats every
page's own seat at the bottom, that every log event reads as a sentence, and that nothing
a seat is sent depends on the cards it cannot see.
"""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse

from games import boards
from games.models import Table
from games.rules import get_rules
from games.services.tables import table_create, table_join
from tests.conftest import client_for, forget_boards, play_random_moves
from tests.factories import UserFactory
from tests.pages import without_per_response_tokens

pytestmark = pytest.mark.django_db

GNAV = get_rules("gnav")
NAMES = ["Ann", "Ben", "Cy", "Dee"]
INVALID = "INVALID-TEMPLATE-VARIABLE"
# The clock's "time left" changes from one response to the next.
CLOCK_TEXT = re.compile(rb"<time[^>]*>[^<]*</time>")
BUTTON = re.compile(r'<button type="submit" name="action" value="([^"]*)"')
PAGE_SEAT = re.compile(r'<div class="table-page [^"]*" data-seat="([^"]*)"')
SEATS_DRAWN = re.compile(r'<section class="gn-seat[^"]*"\s+data-seat="(\d)"')
GNAV_CSS = Path(settings.BASE_DIR) / "static" / "css" / "games" / "gnav.css"
EVENT_TYPES = {
    *("deal", "skip", "knock", "keep", "ask", "trade", "pass", "cuckoo", "dragoon", "cat"),
    *("exchange", "undo", "life", "out", "showdown", "rest", "end"),
}


@pytest.fixture
def players():
    return [UserFactory(username=name.lower(), display_name=name) for name in NAMES]


@pytest.fixture
def spectator():
    return UserFactory(username="spectator")


@pytest.fixture
def gnav_table(players) -> Table:
    table = table_create(user=players[0], game="gnav", num_seats=4, seconds_per_move=86400)
    for user in players[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


@pytest.fixture
def strict_templates(settings):
    """Unknown variables print a marker instead of nothing, so a typo shows up."""
    engine = settings.TEMPLATES[0]
    options = {**engine.get("OPTIONS", {}), "string_if_invalid": INVALID}
    settings.TEMPLATES = [{**engine, "OPTIONS": options}, *settings.TEMPLATES[1:]]


def _page(client, table: Table) -> str:
    response = client.get(reverse("table_detail", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _buttons(page: str) -> list[dict]:
    return [json.loads(html.unescape(value)) for value in BUTTON.findall(page)]


def _text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def _board(page: str) -> str:
    """The board of a table page: its public part and the viewer's private part."""
    return page.split('<div id="board"', 1)[1].split('<div id="board-message"', 1)[0]


def _public(page: str) -> str:
    """The public part: the board's top, then its end (the private part comes between)."""
    top = page.split('<div id="board-public"', 1)[1].split('<div id="board-private"', 1)[0]
    end = page.split('<div id="board-public-end"', 1)[1]
    return top + end.split('<div id="board-message"', 1)[0]  # the board ends there (chat after)


def _private(page: str) -> str:
    return page.split('<div id="board-private"', 1)[1].split('<div id="board-public-end"', 1)[0]


def _random_states(seed: int) -> list:
    """Every state of a match played at random by the rules alone, the finished one last."""
    rng = random.Random(seed)
    states = [GNAV.setup(4, seed)]
    while GNAV.active_seats(state := states[-1]):
        seat = GNAV.active_seats(state)[0]
        states.append(GNAV.apply(state, seat, rng.choice(GNAV.legal_actions(state, seat))))
    return states


# --- the board --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_every_seat_and_a_spectator_can_read_the_board_throughout_a_match(
    gnav_table, players, spectator, strict_templates, seed
):
    rng = random.Random(seed)
    clients = [(seat, client_for(user)) for seat, user in enumerate(players)]
    clients.append((None, client_for(spectator)))
    table = gnav_table
    while True:
        state = GNAV.from_json(table.state)
        for seat, client in clients:
            page = _page(client, table)
            assert INVALID not in _board(page)
            # The four seats in a fixed order; gnav.css puts the page's own at the bottom.
            assert PAGE_SEAT.search(page).group(1) == ("" if seat is None else str(seat))
            assert SEATS_DRAWN.findall(page) == ["0", "1", "2", "3"]
            offered = [] if seat is None else GNAV.legal_actions(state, seat)
            assert _buttons(page) == offered
            assert _buttons(_private(page)) == offered
            if offered:
                assert "Keep my card" in page
                ask_or_draw = "Draw from the stock" if seat == state.dealer else "to trade</button>"
                assert ask_or_draw in page
            card = None if seat is None else GNAV.view(state, seat)["card"]
            if card is not None and table.is_running:
                assert 'class="gn-my-label"' in _private(page)
                assert f'class="gn-card gn-face gn-r{card["rank"]} ' in _private(page)
            else:
                assert 'class="gn-my-label"' not in page
        if not table.is_running:
            break
        table = play_random_moves(table, rng.randrange(2, 6), rng)
    assert table.status == Table.Status.FINISHED
    assert "gn-result" in page


def test_the_seat_to_act_sees_its_own_card_and_the_buttons_the_others_see_backs(
    gnav_table, players
):
    state = GNAV.from_json(gnav_table.state)
    turn = state.turn
    own = GNAV.view(state, turn)["card"]
    name = render_to_string("games/gnav/rank_name.html", {"rank": own["rank"]})
    page = _page(client_for(players[turn]), gnav_table)
    private = _private(page)
    assert re.search(rf'class="gn-card gn-face gn-r{own["rank"]} gn-\w+ gn-big"', private)
    assert f'role="img" aria-label="{name}"' in private
    # The public part shows every card in a hand as a back (and the stock), the seat's own too:
    # gnav.css hides that one where the page shows the face.
    public = _public(page)
    assert "gn-face" not in public  # no card has been shown yet
    assert public.count('aria-label="a hidden card"') == len(state.order) + 1
    other = players[(turn + 1) % 4]
    other_page = _page(client_for(other), gnav_table)
    assert _buttons(other_page) == []
    assert _public(other_page) == public


def test_a_finished_match_shows_the_winner_and_how_each_seat_went_out(gnav_table, players):
    table = play_random_moves(gnav_table, 200, random.Random(7))
    assert table.status == Table.Status.FINISHED
    details = GNAV.outcome(GNAV.from_json(table.state)).details
    page = _page(client_for(players[0]), table)
    result = _text(page.split('class="gn-result"', 1)[1].split("</table>", 1)[0])
    if details["winner"] is None:
        assert "The match is a draw" in result
    else:
        assert f"{NAMES[details['winner']]} is the last survivor and wins the match" in result
    for seat, row in enumerate(details["breakdown"]):
        if row["out_in_deal"] is not None:
            assert f"{NAMES[seat]} ♡♡♡ 0 lives In deal {row['out_in_deal']}," in result
    assert _buttons(page) == []


def test_the_public_part_is_the_same_for_every_page_and_depends_on_no_hidden_card(
    gnav_table, players, spectator
):
    """Rendered from the spectator's view: the same bytes on every seat's page and a
    spectator's; with every card nobody may see swapped (each seat's view kept), unchanged."""
    rng = random.Random(5)
    for state in rng.sample(_random_states(5)[1:-1], 6):
        _with_state(gnav_table, GNAV.to_json(state))
        pages = [_page(client_for(user), gnav_table) for user in [*players, spectator]]
        public = _public(pages[0])
        assert all(_public(page) == public for page in pages)
        part = boards.public_part(gnav_table).html
        assert all(piece in pages[0] for piece in boards.split_public(part))
        for forbidden in ("<button", "<form", "csrf", "gn-my-label", "gn-big", "why-not"):
            assert forbidden not in part, forbidden
        for seat in range(4):
            other = GNAV.sample_state(GNAV.view(state, seat), seat, rng)
            assert GNAV.view(other, None) == GNAV.view(state, None)
            _with_state(gnav_table, GNAV.to_json(other))
            forget_boards()  # the same version: render it again
            assert boards.public_part(gnav_table).html == part
        forget_boards()


def test_a_seats_private_part_has_its_own_card_and_its_moves_only(gnav_table, players):
    rng = random.Random(9)
    for state in rng.sample(_random_states(9)[1:-1], 6):
        _with_state(gnav_table, GNAV.to_json(state))
        names = boards.public_part(gnav_table).names
        for seat in range(4):
            audience = boards.Audience(position=seat, user_id=players[seat].pk)
            private, _digest, my_turn = boards.private_part(gnav_table, audience, names)
            view = GNAV.view(state, seat)
            assert _buttons(private) == view["legal_actions"]
            assert my_turn == (state.turn == seat)
            if view["card"] is not None:
                assert f'class="gn-card gn-face gn-r{view["card"]["rank"]} ' in private
                # Nobody else's card: the only face in it is the seat's own.
                assert private.count('class="gn-card gn-face') == 1
            else:
                assert "gn-face" not in private
        spectator = boards.Audience(position=None)
        private, _digest, _my_turn = boards.private_part(gnav_table, spectator, names)
        assert "gn-" not in private


# The places round the table, as gnav.css names them, clockwise from the bottom.
PLACES = ("bottom", "left", "top", "right")


def test_every_page_sees_its_own_seat_at_the_bottom_and_the_others_clockwise():
    """gnav.css places each seat (data-seat) from the page's data-seat: one place for every
    seat and page, the page's own seat at the bottom and seat s + 1 on the left of seat s."""
    css = re.sub(r"/\*.*?\*/", "", GNAV_CSS.read_text(), flags=re.S)
    placed: dict[tuple[str, str], list[str]] = {}
    for selectors, area in re.findall(r"([^{}]+)\{[^{}]*--gn-area:\s*(\w+)", css):
        for selector in selectors.split(","):
            match = re.fullmatch(
                r'(?:\.table-page\[data-seat="(\d)"\] )?\.gn-seat\[data-seat="(\d)"\]',
                " ".join(selector.split()),
            )
            assert match, selector
            placed.setdefault((match.group(1) or "", match.group(2)), []).append(area)
    for page in ("", "0", "1", "2", "3"):
        me = int(page or 0)
        for seat in range(4):
            # The page's own rule, or the one for every page (a spectator's, seat 0's).
            areas = placed.get((page, str(seat))) or placed.get(("", str(seat)))
            assert areas == [PLACES[(seat - me) % 4]], (page, seat, areas)


def test_the_rank_table_is_in_the_rules_panel_not_in_the_board(players):
    table = table_create(
        user=players[0],
        game="gnav",
        num_seats=4,
        seconds_per_move=86400,
        options={"cat_undoes_trades": False},
    )
    for user in players[1:]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    page = _page(client_for(players[1]), table)
    board = _board(page)
    assert "Card ranks and matadors" not in board
    panel = page.split('id="rules-panel"', 1)[1].split('<div id="board"', 1)[0]
    help_ = _text(panel.split('class="gn-help">', 1)[1].split("</details>", 1)[0])
    assert help_.startswith("Card ranks and matadors Lowest to highest: Narr (Fool) < Ugle (Owl)")
    assert "Gjøk (Cuckoo)" in help_
    # This table's Cat only refuses; the game's page tells of the default one.
    assert "Cat: refuses and the asker loses a life." in help_
    game_page = client_for(None).get(reverse("game_page", args=["gnav"])).content.decode()
    assert (
        "Cat: refuses, the asker loses a life and every trade of the deal is undone."
        in (game_page.split('class="gn-help">', 1)[1].split("</details>", 1)[0])
    )


# --- the log and the result, rendered from the rules alone --------------------------------


def _variant(event: dict, viewer: int | None) -> tuple:
    """What changes the sentence: the type and the branches the template takes."""
    kind = event["type"]
    if kind == "deal":
        return (
            kind,
            event["dealt"][viewer] is not None if viewer is not None else False,
            bool(event["resting"]),
            event["button"] != event["seat"],
        )
    if kind in ("trade", "exchange"):
        return kind, event["gave"] is not None, viewer == event["seat"]
    if kind in ("pass", "cuckoo", "dragoon", "cat", "undo", "end"):
        rank = event["card"]["rank"] if kind == "pass" else None
        return kind, event["seat"] is None, rank, bool(event.get("trades"))
    if kind == "ask":
        return kind, event["to"] is None
    if kind == "life":
        return kind, event["reason"]
    if kind == "showdown":
        return kind, event["void"]
    return (kind,)


# Variants (see ``_variant``) the tests below read, besides one event of every type.
WANTED = {
    *(("pass", False, 18, False), ("pass", False, 17, False), ("pass", True, 18, False)),
    *(("dragoon", False, None, False), ("cat", True, None, False), ("undo", False, None, True)),
    *(("life", "dragoon"), ("life", "next_lowest"), ("end", True, None, False)),
    *(("showdown", True), ("showdown", False), ("deal", True, True, True)),
    *(("trade", True, True), ("trade", True, False), ("trade", False, False)),
    *(("exchange", True, True), ("exchange", False, False)),
}


def _events_of_every_variant() -> tuple[dict, list]:
    """Random matches until every event type and the wanted variants have appeared."""
    found: dict[tuple, tuple[dict, int | None]] = {}
    finals = []
    for seed in range(3000):
        final = _random_states(seed)[-1]
        finals.append(final)
        for viewer in (0, 1, 2, 3, None):
            for event in GNAV.view(final, viewer)["log"]:
                found.setdefault(_variant(event, viewer), (event, viewer))
        if {key[0] for key in found} == EVENT_TYPES and found.keys() >= WANTED:
            return found, finals
    raise AssertionError(f"never saw {WANTED - found.keys()}")


@pytest.fixture(scope="module")
def variants():
    return _events_of_every_variant()


def test_every_log_event_reads_as_a_sentence(variants, strict_templates):
    found, _finals = variants
    assert {key[0] for key in found} == EVENT_TYPES
    for key, (event, viewer) in found.items():
        rendered = render_to_string(
            "games/gnav/log_entry.html", {"entry": event, "names": NAMES, "viewer": viewer}
        )
        sentence = _text(rendered)
        assert INVALID not in rendered, key
        assert len(sentence) > 12 and sentence != event["type"], (key, sentence)
        assert "None" not in sentence and "?" not in sentence, (key, sentence)
        if event.get("seat") is not None and event["type"] not in ("showdown", "skip"):
            assert NAMES[event["seat"]] in sentence, (key, sentence)


def test_the_log_speaks_of_matadors_and_names_the_cards_a_seat_may_see(variants):
    found, _finals = variants

    def sentence(kind: str, *rest) -> str:
        event, viewer = found[(kind, *rest)]
        context = {"entry": event, "names": NAMES, "viewer": viewer}
        return _text(render_to_string("games/gnav/log_entry.html", context))

    assert sentence("pass", False, 18, False).startswith("“Horse, pass on!”")
    assert sentence("pass", False, 17, False).startswith("“House, pass on!”")
    assert sentence("dragoon", False, None, False).startswith("“Dragoon!”")
    assert sentence("cat", True, None, False).startswith("From the stock: a Cat!")
    assert "Cat undoes" in sentence("undo", False, None, True)
    assert "loses a life to the Dragoon" in sentence("life", "dragoon")
    assert "lowest card after the Fool" in sentence("life", "next_lowest")
    assert "the match is a draw" in sentence("end", True, None, False)
    assert "nobody loses a life" in sentence("showdown", True)
    event, _viewer = found[("showdown", False)]
    shown = sentence("showdown", False)
    for seat, card in enumerate(event["cards"]):
        if card is not None:
            rank = render_to_string("games/gnav/rank_name.html", {"rank": card["rank"]})
            assert f"{NAMES[seat]} {rank}" in shown
    assert "You gave:" in sentence("trade", True, True)
    assert "You gave:" not in sentence("trade", False, False)
    assert "you drew:" in sentence("exchange", True, True)
    assert "you drew:" not in sentence("exchange", False, False)


def test_the_result_names_the_winner_or_the_draw(variants, strict_templates):
    _found, finals = variants
    won = next(f for f in finals if GNAV.outcome(f).details["winner"] is not None)
    drawn = next(f for f in finals if GNAV.outcome(f).details["winner"] is None)
    for final in (won, drawn):
        view = GNAV.view(final, None)
        text = _text(render_to_string("games/gnav/result.html", {"view": view, "names": NAMES}))
        winner = view["outcome"]["details"]["winner"]
        if winner is None:
            assert text.startswith("The match is a draw")
        else:
            assert text.startswith(f"{NAMES[winner]} is the last survivor and wins the match")
        assert all(name in text for name in NAMES)
        assert INVALID not in text


def test_the_result_says_whom_a_seat_outlasted_only_when_it_outlasted_someone(
    variants, strict_templates
):
    _found, finals = variants
    for final in finals:
        view = GNAV.view(final, None)
        text = _text(render_to_string("games/gnav/result.html", {"view": view, "names": NAMES}))
        assert "outlasted 0" not in text
        outlasted = [b["outlasted"] for b in view["outcome"]["details"]["breakdown"]]
        for n in {n for n in outlasted if n and n < 3}:
            assert f"outlasted {n} player" in text


# --- hidden information -----------------------------------------------------------------


def _received(client, table: Table) -> bytes:
    page = client.get(reverse("table_detail", args=[table.pk])).content
    return CLOCK_TEXT.sub(b"-", without_per_response_tokens(page))


def _with_state(table: Table, state_json: dict) -> None:
    Table.objects.filter(pk=table.pk).update(state=state_json)
    table.refresh_from_db()


@pytest.mark.parametrize("position", range(8))
def test_a_seat_receives_nothing_that_depends_on_cards_it_cannot_see(
    gnav_table, players, spectator, position
):
    """Swap every card a seat cannot see for others consistent with its view: the page
    it receives must not change, or a hidden card leaked into it."""
    rng = random.Random(position)
    state = rng.choice(_random_states(position)[:-1])
    real = GNAV.to_json(state)
    _with_state(gnav_table, real)
    for seat, user in [*enumerate(players), (None, spectator)]:
        client = client_for(user)
        page = _received(client, gnav_table)
        observer = 0 if seat is None else seat
        other = GNAV.sample_state(GNAV.view(state, observer), observer, rng)
        assert GNAV.view(other, seat) == GNAV.view(state, seat)
        _with_state(gnav_table, GNAV.to_json(other))
        forget_boards()  # the public part of this version is cached: render it from `other`
        assert _received(client, gnav_table) == page
        _with_state(gnav_table, real)
        forget_boards()
