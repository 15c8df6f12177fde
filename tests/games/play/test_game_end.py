"""The end of a game leads somewhere (issue 25, point 4): a finished table's page says who won
at its top, with every place and the game's own result beside it, shows no empty hand, and
offers what comes next: a rematch (offered, accepted or declined), watch the replay, the lobby."""

from __future__ import annotations

import random
import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.db.models import F
from django.urls import reverse

from games.catalog import playable_games
from games.live.routing import websocket_urlpatterns
from games.models import LIVE_AFTER_END, Table
from games.rules import get_rules
from games.selectors.replays import hides_something
from games.services.tables import table_create, table_join, table_rematch
from tests.conftest import client_for, forget_boards, user_at
from tests.games.rated_games import finished_game, play_to_the_end
from tests.support.sockets import BoardSocket

pytestmark = pytest.mark.django_db

PLAYERS = {"district-noir": 2, "slide": 3, "gnav": 4, "point-city": 2}
HTMX = {"HTTP_HX_REQUEST": "true"}


def _finished(slug: str, make_user, seed: int = 0) -> Table:
    users = [make_user() for _ in range(PLAYERS.get(slug, get_rules(slug).min_players))]
    table = table_create(user=users[0], game=slug, num_seats=len(users), seconds_per_move=86400)
    for user in users[1:]:
        table_join(table_id=table.pk, user=user)
    return play_to_the_end(table, random.Random(seed))


def _page(table: Table, user) -> str:
    response = client_for(user).get(reverse("table_detail", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _between(html: str, start: str, end: str) -> str:
    at = html.index(start)
    return html[at : html.index(end, at)]


def _headline(html: str) -> str:
    return _text(_between(html, 'id="game-end-title"', "</h2>").split(">", 1)[1])


def _top(html: str) -> str:
    """The board's top: the public part before the viewer's private part."""
    return _between(html, '<div id="board-public"', '<div id="board-private"')


def _private(html: str) -> str:
    return _between(html, '<div id="board-private"', '<div id="board-public-end"')


def _end(html: str) -> str:
    return html[html.index('<div id="board-public-end"') :]


def _winners(table: Table) -> list[str]:
    seats = {s.position: s for s in table.seats.select_related("user")}
    ranks = table.outcome["ranks"]
    return [str(seats[p].player_name) for p in range(table.num_seats) if ranks[p] == 0]


@pytest.mark.parametrize("rules", playable_games(), ids=lambda rules: rules.slug)
def test_the_top_of_a_finished_table_says_who_won_with_every_place_and_the_result(rules, make_user):
    table = _finished(rules.slug, make_user, seed=3)
    player = user_at(table, 0)
    html = _page(table, player)
    winners = _winners(table)
    headline = _headline(html)
    if len(winners) == 1:
        assert headline == f"{winners[0]} wins"
    else:
        assert headline == "A shared win: " + ", ".join(winners)
    top = _top(html)
    assert "The game is over." not in top
    places = _text(_between(top, '<ol class="ranking"', "</ol>"))
    assert places.count("place") == table.num_seats
    assert "first place" in places
    # The game's own result (its scores in detail) comes first after the next steps, before the
    # final board; nothing of the board is in the top.
    end = _end(html)
    assert end.index('class="result-details panel"') < end.index('class="game-public game-final"')
    assert end.count('class="result-details panel"') == 1
    assert 'class="game-public"' not in top


@pytest.mark.parametrize("rules", playable_games(), ids=lambda rules: rules.slug)
def test_a_finished_table_shows_no_empty_hand_and_the_three_next_steps(rules, make_user):
    table = _finished(rules.slug, make_user, seed=4)
    html = _page(table, user_at(table, 1))
    board = html[html.index('<div id="board"') :]
    board = re.sub(r'<section class="log panel.*?</section>', "", board, flags=re.S)  # its log
    # Each game's own hand, grid or card (private), and District Noir's row of backs (public).
    for empty in ("Your hand", "Your grid", "Your card:", "dn-backs", "0 hidden cards"):
        assert empty not in board, empty
    steps = _text(_private(html))
    assert steps.startswith("Rematch Watch the replay Back to the lobby")
    private = _private(html)
    assert f'action="{reverse("table_rematch", args=[table.pk])}"' in private
    assert 'name="csrfmiddlewaretoken"' in private, "it works without JavaScript too"
    assert f'href="{reverse("table_replay", args=[table.pk])}"' in private
    assert f'href="{reverse("lobby")}"' in private
    fairness = _between(html, 'id="fairness"', "</section>")
    assert "Fair shuffle: the seed was" in fairness
    assert "/replay/" not in fairness, "the replay is a next step, not a link in the note"


@pytest.mark.parametrize("rules", playable_games(), ids=lambda rules: rules.slug)
def test_a_spectator_of_a_finished_table_may_watch_the_replay_or_go_back_but_not_play(
    rules, make_user
):
    table = _finished(rules.slug, make_user, seed=5)
    for viewer in (None, make_user()):
        html = _page(table, viewer)
        private = _private(html)
        assert _text(private) == "Watch the replay Back to the lobby"
        assert "rematch" not in private
        assert _headline(html)


@pytest.mark.parametrize("rules", playable_games(), ids=lambda rules: rules.slug)
def test_what_a_spectator_could_not_see_is_face_up_at_the_end(rules, make_user):
    """No hand at the end in anyone's private part; what was still hidden is shown to all."""
    table = _finished(rules.slug, make_user, seed=6)
    state = rules.from_json(table.state)
    spectator = rules.view(state, None)
    hidden = [
        seat
        for seat in range(table.num_seats)
        if hides_something(rules.view(state, seat), spectator)
    ]
    html = _page(table, None)
    if hidden:
        reveal = _between(html, 'id="reveal"', "</section>")
        assert "Every hand revealed" in reveal
        for seat in range(table.num_seats):
            assert reveal.count(f'data-seat="{seat}"') == 1, seat
    else:
        assert 'id="reveal"' not in html


def test_the_hand_left_at_an_instant_city_win_is_face_up_for_everyone(running_table, alice):
    """District Noir ends at once when a player collects the three City cards: cards are still
    in the hands, and they are shown once, face up, to players and spectators alike."""
    dn = get_rules("district-noir")
    for seed in range(2000):
        rng, state = random.Random(seed), dn.setup(2, seed)
        while dn.outcome(state) is None:
            seat = dn.active_seats(state)[0]
            state = dn.apply(state, seat, rng.choice(dn.legal_actions(state, seat)))
        if dn.outcome(state).reason == "city" and any(state.hands):
            break
    Table.objects.filter(pk=running_table.pk).update(
        state=dn.to_json(state),
        status=Table.Status.FINISHED,
        outcome=dn.outcome(state).to_json(),
        version=F("version") + 1,
    )
    for viewer in (alice, None):
        html = _page(running_table, viewer)
        reveal = _between(html, 'id="reveal"', "</section>")
        for seat in range(2):
            assert reveal.count(f'data-seat="{seat}"') == 1
            for card in dn.view(state, seat)["hand"]:
                assert f"dn-{card['kind']} v{card['value']}" in reveal
        assert "hidden card" not in html and "Your hand" not in html


def _with_outcome(table: Table, **changes) -> None:
    """The table's stored outcome changed (a new version: the public part renders again)."""
    outcome = {**table.outcome, **changes}
    Table.objects.filter(pk=table.pk).update(outcome=outcome, version=F("version") + 1)
    table.refresh_from_db()


def test_a_shared_first_place_names_every_winner(alice, bob):
    table = finished_game(alice, bob, seed=1)
    _with_outcome(table, ranks=[0, 0])
    assert _headline(_page(table, alice)) == "A shared win: alice, bob"


def test_a_player_replaced_by_a_bot_is_ranked_last_and_the_page_says_why(alice, bob):
    table = finished_game(alice, bob, seed=1)
    _with_outcome(table, ranks=[1, 0], forfeited=[0])
    html = _page(table, bob)
    assert _headline(html) == "bob wins"
    assert "A player who ran out of time too often is ranked last." in _top(html)


def test_the_table_and_its_replay_rank_the_players_alike(make_user):
    """One ranking of a finished table: the places at its top are the replay's final result,
    a forfeit ranked last in both, a shared place in seat order in both."""
    table = _finished("slide", make_user, seed=3)
    _with_outcome(table, ranks=[0, 2, 0], forfeited=[1])
    names = [str(table.seats.get(position=p).player_name) for p in range(3)]
    top = _between(_page(table, None), '<ol class="ranking">', "</ol>")
    at_top = [names[int(seat)] for seat in re.findall(r'data-seat="(\d)"', top)]
    replay = client_for(None).get(reverse("table_replay", args=[table.pk])).content.decode()
    result = _between(replay, '<table class="ratings results">', "</table>")
    in_replay = [_text(cell) for cell in re.findall(r'<td class="name">(.*?)</td>', result)]
    assert at_top == in_replay == [names[0], names[2], names[1]]


@pytest.fixture
def solo_table(alice) -> Table:
    table = table_create(user=alice, game="point-city", num_seats=1, seconds_per_move=86400)
    return play_to_the_end(table, random.Random(1))


@pytest.mark.parametrize(("won", "says"), [(True, "alice wins"), (False, "alice loses")])
def test_a_solo_game_says_won_or_lost_when_its_rules_say_so(solo_table, alice, won, says):
    details = {**solo_table.outcome.get("details", {})}
    details["solo"] = {"won": won, "level": 2, "opponent_score": 31}
    _with_outcome(solo_table, details=details)
    html = _page(solo_table, alice)
    assert _headline(html) == says
    score = solo_table.outcome["scores"][0]
    assert f"{score:g} points to 31" in _text(_top(html))
    assert 'class="ranking"' not in html, "one seat: no list of places"


def test_a_solo_game_without_a_verdict_of_its_rules_says_it_is_over(solo_table, alice):
    details = {k: v for k, v in solo_table.outcome.get("details", {}).items() if k != "solo"}
    _with_outcome(solo_table, details=details)
    html = _page(solo_table, alice)
    assert _headline(html) == "The game is over."
    assert "Rematch" in _private(html)


def test_after_a_rematch_offer_the_others_may_accept_or_decline_and_spectators_watch(
    alice, bob, carol
):
    table = finished_game(alice, bob, seed=1)
    new = table_rematch(table_id=table.pk, user=alice)
    forget_boards()
    new_url = reverse("table_detail", args=[new.pk])
    accept_url = reverse("table_rematch", args=[table.pk])
    decline_url = reverse("table_rematch_decline", args=[table.pk])
    mine = _private(_page(table, alice))
    assert _text(mine).startswith("Go to the rematch Withdraw the rematch")
    assert f'href="{new_url}"' in mine and f'action="{decline_url}"' in mine
    assert f'action="{accept_url}"' not in mine
    theirs = _private(_page(table, bob))
    assert _text(theirs).startswith("Accept the rematch Decline")
    assert "alice offers a rematch: the same game, each seat moved on by one." in _text(theirs)
    assert f'action="{accept_url}"' in theirs and f'action="{decline_url}"' in theirs
    for spectator in (carol, None):
        watching = _private(_page(table, spectator))
        assert _text(watching).startswith("Watch the new table")
        assert f'href="{new_url}"' in watching and "action=" not in watching


def test_a_declined_rematch_offers_rematch_once_more(alice, bob):
    table = finished_game(alice, bob, seed=1)
    table_rematch(table_id=table.pk, user=alice)
    declined = client_for(bob).post(reverse("table_rematch_decline", args=[table.pk]), **HTMX)
    assert declined.status_code == 200
    forget_boards()
    for user in (alice, bob):
        assert _text(_private(_page(table, user))).startswith("Rematch")
    again = client_for(bob).post(reverse("table_rematch_decline", args=[table.pk]), **HTMX)
    assert again.status_code == 409 and "No rematch is on offer" in again.text


def test_an_aborted_new_table_offers_a_rematch_once_more(alice, bob):
    from games.services.tables import table_abort

    table = finished_game(alice, bob, seed=1)
    new = table_rematch(table_id=table.pk, user=alice)
    table_abort(table_id=new.pk, user=alice)
    for user in (alice, bob):
        assert _text(_private(_page(table, user))).startswith("Rematch")


# -- the rematch view -------------------------------------------------------------------------


def test_a_rematch_goes_to_the_new_table_and_accepting_seats_the_other_there(alice, bob):
    table = finished_game(alice, bob, seed=1)
    url = reverse("table_rematch", args=[table.pk])
    opened = client_for(alice).post(url, **HTMX)
    assert opened.status_code == 200
    new = Table.objects.get(pk=Table.objects.get(pk=table.pk).next_table_id)
    assert opened["HX-Redirect"] == reverse("table_detail", args=[new.pk])
    joined = client_for(bob).post(url)  # without JavaScript: a plain post
    assert joined.status_code == 302 and joined["Location"] == reverse(
        "table_detail", args=[new.pk]
    )
    new.refresh_from_db()
    assert new.is_running and Table.objects.count() == 2


@pytest.mark.parametrize(
    ("who", "where", "status", "says"),
    [
        ("stranger", "finished", 403, "Only the players of this game can play it again."),
        ("player", "running", 409, "This game is not over yet."),
        ("player", "missing", 404, "There is no such table."),
    ],
)
def test_a_refused_play_again_says_why_and_changes_nothing(
    running_table, alice, carol, who, where, status, says
):
    finished = finished_game(carol, alice, seed=2) if where == "finished" else None
    table_id = {"finished": finished and finished.pk, "running": running_table.pk}.get(
        where, 987654321
    )
    user = {"stranger": running_table.seats.get(position=1).user, "player": alice}[who]
    before = list(Table.objects.values_list("pk", "version", "next_table_id", "status"))
    client = client_for(user)
    url = reverse("table_rematch", args=[table_id])
    answer = client.post(url, **HTMX)
    assert answer.status_code == status
    assert says in answer.content.decode()
    page = client.post(url, follow=True)  # without JavaScript: back to a page, with the reason
    assert says in page.content.decode()
    after = list(Table.objects.values_list("pk", "version", "next_table_id", "status"))
    assert after == before


def test_a_visitor_is_asked_to_sign_in_first(alice, bob):
    table = finished_game(alice, bob, seed=1)
    response = client_for(None).post(reverse("table_rematch", args=[table.pk]))
    assert response.status_code == 302 and reverse("account_login") in response["Location"]
    assert Table.objects.count() == 1


def test_the_page_of_a_game_just_finished_keeps_its_socket_for_a_while(alice, bob):
    """So that its players learn of a rematch without a reload; an old game's page has none."""
    table = finished_game(alice, bob, seed=1)
    table_socket = f'ws-connect="/ws/t/{table.pk}/'
    assert table_socket in _page(table, alice)
    Table.objects.filter(pk=table.pk).update(finished_at=F("finished_at") - LIVE_AFTER_END)
    table.refresh_from_db()
    old = _page(table, alice)
    assert table_socket not in old
    assert 'ws-connect="/ws/me/"' in old  # the bell's own small socket instead


# -- the others learn of it on their open page ------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_other_players_open_page_is_offered_to_join_without_a_reload(alice, bob, carol):
    """The finished page keeps its socket (table.html: ``keeps_socket``); "Rematch" moves the
    old table's version on, and each open page gets its own next steps pushed."""
    table = finished_game(alice, bob, seed=1)

    async def scenario() -> tuple[str, str]:
        player = BoardSocket(URLRouter(websocket_urlpatterns), f"/ws/t/{table.pk}/")
        player.scope["user"] = bob
        spectator = BoardSocket(URLRouter(websocket_urlpatterns), f"/ws/t/{table.pk}/")
        spectator.scope["user"] = carol
        assert (await player.connect())[0] and (await spectator.connect())[0]
        await database_sync_to_async(table_rematch)(table_id=table.pk, user=alice)
        frames = await player.receive_from(timeout=5), await spectator.receive_from(timeout=5)
        await player.disconnect()
        await spectator.disconnect()
        return frames

    pushed, watched = async_to_sync(scenario)()
    assert "Accept the rematch" in pushed[pushed.index('id="board-private"') :]
    assert "alice offers a rematch" in pushed
    assert "Watch the new table" in watched and "Accept the rematch" not in watched


@pytest.mark.django_db(transaction=True)
def test_a_push_to_a_finished_page_costs_two_queries_at_most(
    alice, bob, django_assert_max_num_queries
):
    """The table row, and its next table as this viewer sees it."""
    from games import boards

    table = finished_game(alice, bob, seed=1)
    table_rematch(table_id=table.pk, user=alice)
    boards.changed_since(table.pk, boards.Audience(None), boards.SentParts())  # fills the cache
    for audience in [
        boards.Audience(1, bob.pk),
        boards.Audience(0, alice.pk),
        boards.Audience(None),
    ]:
        with django_assert_max_num_queries(2):
            html = boards.changed_since(table.pk, audience, boards.SentParts())
        assert "the new table" in html or "rematch" in html
