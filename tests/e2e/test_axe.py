"""axe-core finds no WCAG 2.0, 2.1 and 2.2 A/AA violation on any page, at a phone's and a
desktop's width (390 and 1280 px), in the light and the dark theme: the site's pages for a
visitor and a signed-in player, a game running at each of the four games' tables (seated and
watching), its replay and its log. And each game's moves are called first what they show (WCAG
2.5.3), which axe does not check.

One browser, one page per viewer; each page is loaded once and checked at each size (the window
resized) in every theme: as the system says, in a light system and a dark one, then each theme
chosen against the other system scheme (dark on a light system, light on a dark one), which
proves the choice wins (a theme whose every colour is one already checked at that size is not
checked again: see tests/e2e/axe.py). A failure names the page, the width, the theme, the rule
and the element, e.g.
``lobby (visitor) 390px dark on a light system: target-size (...): .language-form select``.
"""

from __future__ import annotations

import datetime as dt
import io
import random
import re

import pytest
from axe_playwright_python.base import AXE_SCRIPT
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from accounts.models import Block, Follow, User
from api.services import token_make
from community.models import Challenge, ChatLine
from community.services.challenges import challenge_create, challenge_decline
from games.catalog import playable_games
from games.live import broadcast
from games.services.tables import table_create
from tests.e2e.axe import SIZES, Visit, check_visits
from tests.e2e.pages import sign_in
from tests.e2e.tables import a_table, until_turn_of
from tests.factories import UserFactory
from tests.games.rated_games import play_to_the_end
from tests.support.tournament_pages import rounds_played, tournament_finish, tournament_started
from tournaments.models import Entry, Format, Round
from tournaments.services.entries import TournamentSettings, tournament_create, tournament_leave

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def the_visits(me: User, players: list[User]) -> list[Visit]:
    """Every page, with what it needs: finished (rated) games of each game for the replays,
    logs, leaderboards and profiles, and a running table of each game at ``me``'s turn."""
    rng = random.Random(19)
    visits = [
        Visit("lobby (visitor)", reverse("lobby")),
        Visit("sign in", reverse("account_login")),
        Visit("sign up", reverse("account_signup")),
        Visit("password reset", reverse("account_reset_password")),
        Visit("sign-in code", reverse("account_request_login_code")),
        Visit("signed-in devices", reverse("usersessions_list"), me.username),
        Visit("your data", reverse("account_data"), me.username),
        Visit("account closed", reverse("account_closed")),
        Visit("not found", "/no-such-page/"),
        Visit("lobby (player)", reverse("lobby"), me.username),
        Visit("profile settings", reverse("profile_edit"), me.username),
        Visit("play settings", reverse("play_settings"), me.username),
    ]
    for rules in playable_games():
        slug = rules.slug
        finished = play_to_the_end(a_table(slug, [me, *players]), rng)
        running = until_turn_of(a_table(slug, [me, *players]), me, rng)
        # The chat with lines in both rooms (another's with its report button, and one's own),
        # under the running board and in the finished game's replay.
        for table in (running, finished):
            say = [(players[0], "players", "good luck"), (me, "table", "thanks, you too")]
            for author, room, text in say:
                ChatLine.objects.create(table=table, room=room, author=author, text=text)
        table_url = reverse("table_detail", args=[running.pk])
        # The replay's last step shows the result and every hand, as the finished table does.
        the_end = f"{reverse('table_replay', args=[finished.pk])}?step={finished.moves.count()}"
        visits += [
            Visit(f"{slug} game page", reverse("game_page", args=[slug])),
            Visit(f"{slug} replay's end", the_end),
            Visit(f"{slug} table (spectator)", table_url),
            Visit(f"{slug} table (seated)", table_url, me.username),
        ]
    # One of each page that looks the same for every game: a table's board already shows its
    # game's log entries, the replay's end the replay's controls.
    visits += [
        Visit("game page (player)", reverse("game_page", args=["slide"]), me.username),
        Visit("leaderboard", reverse("leaderboard", args=["point-city"])),
        Visit("replay's start", reverse("table_replay", args=[finished.pk])),
        Visit("log", reverse("table_log", args=[finished.pk])),
    ]
    # A solo game: the profile counts it apart, the replay lists the game's own side.
    solo = table_create(user=me, game="point-city", num_seats=1, seconds_per_move=86400)
    solo = play_to_the_end(solo, rng)
    visits.append(Visit("solo replay's start", reverse("table_replay", args=[solo.pk])))
    visits.append(Visit("player profile", reverse("player_profile", args=[me.username])))
    # Follows and blocks: a friend, a follower, a blocked player; the controls on another's
    # profile (a block opens them), the people page, "Follow" at a finished table.
    friend, follower, blocked = players[:3]
    Follow.objects.bulk_create(
        [Follow(follower=me, followed=friend), Follow(follower=friend, followed=me)]
        + [Follow(follower=follower, followed=me)]
    )
    Block.objects.create(blocker=me, blocked=blocked, no_games=False)
    # Challenges: one to answer, one sent, one declined with its reason.
    for sender, receiver in ((friend, me), (me, friend), (follower, me)):
        challenge_create(
            sender=sender, receivers=[receiver], game="slide", num_seats=2, seconds_per_move=86400
        )
    declined = Challenge.objects.filter(sender=follower).get()
    challenge_decline(challenge_id=declined.pk, user=me, reason="later")
    challenge_page = reverse("challenge_new", args=[friend.username]) + "?game=slide"
    # A tournament open for sign-up, with two players in it.
    tournament = tournament_create(
        user=friend,
        chosen=TournamentSettings(
            name="Winter Swiss",
            game="district-noir",
            format="swiss",
            table_size=2,
            seconds_per_move=86400,
            starts_at=timezone.now() + dt.timedelta(days=2),
            rounds=4,
            min_players=4,
            max_players=16,
            min_rating=1.5,
        ),
    )
    for player in (me, follower):
        Entry.objects.create(tournament=tournament, user=player)
    token_make(user=me, name="my bot", scopes=["read", "play"])  # the API page lists it
    visits += [
        Visit("API and bots", reverse("api_tokens"), me.username),
        Visit("people", reverse("people"), me.username),
        Visit("a friend's profile", reverse("player_profile", args=[friend.username]), me.username),
        Visit("a blocked profile", reverse("player_profile", args=[blocked.username]), me.username),
        Visit("finished table (seated)", reverse("table_detail", args=[finished.pk]), me.username),
        Visit("challenges", reverse("challenges"), me.username),
        Visit("a challenge's settings", challenge_page, me.username),
        # Notifications: the challenges and follows above are in the bell, unread and read.
        Visit("notifications", reverse("notifications"), me.username),
        Visit("tournaments", reverse("tournaments")),
        Visit("a tournament", reverse("tournament_page", args=[tournament.pk]), me.username),
        Visit("create a tournament", reverse("tournament_new") + "?game=slide", me.username),
        Visit(  # with the panel that allows push (the site has its keys)
            "notification settings",
            reverse("notification_settings"),
            me.username,
            ".push-panel:not([hidden])",
        ),
    ]
    return visits


def test_no_page_has_an_axe_violation(live_server, browser, monkeypatch, settings):
    # Nobody watches; and this thread runs the browser's event loop, where a broadcast could
    # not run.
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    keys = io.StringIO()
    call_command("vapid_keys", stdout=keys)
    for line in keys.getvalue().split():
        name, value = line.split("=", 1)
        setattr(settings, name, value)
    me = UserFactory(username="axel")
    visits = the_visits(me, [UserFactory() for _ in range(3)])
    found = check_visits(browser, live_server.url, visits, sign_in)
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)


def test_no_tournament_page_has_an_axe_violation(live_server, browser, monkeypatch):
    """A tournament's page: open for sign-up; running (its creator's, with "End this round", and
    a visitor's); a window Swiss where the player's game waits for "I'm ready"; a finished
    knockout. And on a phone each page stays as wide as the screen (the standings scroll inside
    their panel)."""
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    me, others = UserFactory(username="axel"), [UserFactory() for _ in range(5)]
    rng = random.Random(29)
    swiss = tournament_started(creator=me, players=[me, *others[:4]], name="Autumn Swiss")
    rounds_played(swiss, 1, rng)
    tournament_leave(tournament_id=swiss.pk, user=others[3])
    Round.objects.filter(tournament=swiss, closed_at__isnull=True).update(
        closes_at=timezone.now() - dt.timedelta(days=1)
    )
    windows = tournament_started(
        creator=others[0],
        players=[me, *others[:3]],
        format=Format.SWISS_WINDOWS,
        round_window=dt.timedelta(days=2),
        start_within=dt.timedelta(days=1),
    )
    knockout = tournament_started(
        creator=others[0], players=[me, *others], format=Format.KNOCKOUT, rounds=None
    )
    tournament_finish(knockout, rng)
    signup = tournament_create(
        user=others[0],
        chosen=TournamentSettings(
            name="Spring Swiss",
            game="slide",
            format="swiss",
            table_size=2,
            seconds_per_move=86400,
            starts_at=timezone.now() + dt.timedelta(days=2),
            rounds=4,
            min_players=4,
            max_players=16,
        ),
    )
    for player in (me, *others):
        Entry.objects.create(tournament=signup, user=player)
    url = lambda tournament: reverse("tournament_page", args=[tournament.pk])  # noqa: E731
    visits = [
        Visit("a tournament open for sign-up", url(signup), me.username),
        Visit("a running tournament (its creator)", url(swiss), me.username, "#round-end"),
        Visit("a running tournament (visitor)", url(swiss)),
        Visit("a window Swiss (waiting to start)", url(windows), me.username, "#tournament-live"),
        Visit("a finished knockout", url(knockout), None, ".tournament-winner"),
    ]
    found = check_visits(browser, live_server.url, visits, sign_in)
    assert not found, f"{len(found)} axe violations:\n" + "\n".join(found)
    page = browser.new_context(viewport=SIZES[390]).new_page()
    for visit in visits[1:]:
        page.goto(live_server.url + visit.path)
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= SIZES[390]["width"], f"{visit.name}: {wide} px wide on a phone"
    page.context.close()


# Each button's text as it is seen (rendered, not visually hidden) and as it is both seen and
# read (not aria-hidden either), and its accessible name as axe computes it.
BUTTON_TEXTS = """buttons => {
  axe.setup();
  const out = buttons.map(button => {
    const unseen = e => {
      for (; e && e !== button.parentElement; e = e.parentElement) {
        const style = getComputedStyle(e), box = e.getBoundingClientRect();
        if (style.display === "none" || style.visibility === "hidden"
            || style.clipPath === "inset(50%)" || (box.width <= 1 && box.height <= 1)) return true;
      }
      return false;
    };
    const seen = [], read = [];
    const walker = document.createTreeWalker(button, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const text = walker.currentNode, parent = text.parentElement;
      if (!text.textContent.trim() || unseen(parent)) continue;
      seen.push(text.textContent);
      if (!parent.closest('[aria-hidden="true"]')) read.push(text.textContent);
    }
    const box = button.getBoundingClientRect();
    return {html: button.outerHTML.slice(0, 160), seen: seen.join(" "), read: read.join(" "),
            name: axe.commons.text.accessibleText(button), move: button.name === "action",
            size: [box.width, box.height]};
  });
  axe.teardown();
  return out;
}"""


def words(text: str) -> str:
    """Lower case, letters and digits only: "+3 ALLIANCE" and "+3 Alliance: play" compare."""
    return " ".join(re.sub(r"[^\w]+|_", " ", text.lower()).split())


# The moves of each game at the seat's turn: its hand cards (District Noir), its arrows and the
# list of moves (Slide, in the sliding phase), its two choices (Gnav), the market's cards and
# the offers (Point City).
MOVE_TARGET = 44  # px: a move is played by a thumb (WCAG 2.5.5's size)
KIND_OF_TURN = {"district-noir": "play", "slide": "slide", "gnav": None, "point-city": "take"}


def test_every_move_is_called_first_what_it_shows(live_server, browser, monkeypatch):
    """WCAG 2.5.3, Label in Name: a move's accessible name starts with the text on it, so a
    player who sees "+3 Alliance" can say "click +3 Alliance"; a button that shows any text
    lets screen readers read some of it. And every move is at least 44 px each way."""
    monkeypatch.setattr(broadcast, "broadcast_table_changed", lambda *args, **kwargs: None)
    me, others = UserFactory(username="axel"), [UserFactory() for _ in range(3)]
    page = browser.new_context(viewport=SIZES[390]).new_page()  # a phone: the least room
    sign_in(page, live_server.url, me.username)
    rng = random.Random(25)
    wrong: list[str] = []
    for rules in playable_games():
        table = until_turn_of(a_table(rules.slug, [me, *others]), me, rng, KIND_OF_TURN[rules.slug])
        page.goto(live_server.url + reverse("table_detail", args=[table.pk]))
        page.evaluate(AXE_SCRIPT)
        buttons = page.locator("#board button:visible").evaluate_all(BUTTON_TEXTS)
        assert len(buttons) >= 2, rules.slug
        for button in buttons:
            seen, read, name = words(button["seen"]), words(button["read"]), words(button["name"])
            if (seen and not read) or not name.startswith(read):
                wrong.append(f"{rules.slug}: {name!r} for {button['seen']!r}: {button['html']}")
            if button["move"] and min(button["size"]) < MOVE_TARGET:
                wrong.append(f"{rules.slug}: a move of {button['size']} px: {button['html']}")
    assert not wrong, "\n".join(wrong)
