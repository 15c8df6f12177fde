"""The site speaks English, Czech, Slovak, Catalan and Hungarian.

Every page renders in every language (for a signed-in player by their profile's
language, for a visitor by the language cookie) with ``<html lang>`` set, the header
in that language and no English sentence of the message catalogue left on it; every
message is translated in every language and compiled; e-mails and the rules' refusals
come in the player's language.
"""

from __future__ import annotations

import datetime as dt
import gettext
import html
import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core import mail
from django.test import Client
from django.urls import URLPattern, reverse
from django.utils import timezone, translation

from accounts import urls as accounts_urls
from accounts.models import User
from config.errors import unavailable
from games import urls as games_urls
from games.catalog import playable_games
from games.jobs import sweeps
from games.live.routing import websocket_urlpatterns
from games.models import Table
from games.rules import Rules, get_rules
from games.rules.point_city.cards import load_card_file
from games.services.moves import move_play
from games.services.reminders import user_unsubscribe_token
from games.services.tables import table_create, table_join
from tests.conftest import client_for
from tests.factories import UserFactory
from tests.games.rated_games import play_to_the_end
from tests.support.sockets import BoardSocket

LOCALE = Path(settings.BASE_DIR) / "locale"
LANGUAGES = [code for code, _name in settings.LANGUAGES]
TRANSLATED = [code for code in LANGUAGES if code != settings.LANGUAGE_CODE]
PLURAL_FORMS = {
    "cs": "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;",
    "sk": "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;",
    "ca": "nplurals=2; plural=(n != 1);",
    "hu": "nplurals=2; plural=(n != 1);",
}
# The header's link to the lobby, in each language: proof that the page is translated.
LOBBY = {"en": "Lobby", "cs": "Herna", "sk": "Herňa", "ca": "Sala", "hu": "Játékterem"}

# Every named route of the site's own apps is either a page rendered below (PAGES, with the
# sign-in pages of allauth) or one of NOT_PAGES.
PAGES = {
    "lobby",
    "game_page",
    "leaderboard",
    "player_profile",
    "table_detail",
    "table_log",
    "table_replay",
    "profile_edit",
    "play_settings",
    "unsubscribe",
    "account_email",
    "account_change_password",
    "account_login",
    "account_signup",
    "account_reset_password",
    "account_data",
    "account_closed",
}
NOT_PAGES = {
    "account_data_download": "JSON download (tests/accounts/test_closing.py)",
    "account_close": "POST only (its refusal is tested in tests/accounts/test_closing.py)",
    "health": "JSON for monitoring",
    "table_view_json": "JSON",
    "table_record": "JSON download",
    "table_create": "POST only",
    "table_act": "POST only (its refusal is tested below)",
    "table_join": "POST only",
    "table_leave": "POST only",
    "table_seat_bot": "POST only",
    "play_against_bots": "POST only",
    "table_abort": "POST only",
    "table_rematch": "POST only (its refusal is tested in tests/games/play/test_game_end.py)",
    "table_rematch_decline": "POST only (refusals: tests/games/play/test_game_end.py)",
    "table_invite": "joins the table and redirects to it",
    "confirm_moves_set": "POST only (the play settings page's form)",
    "vacation_start": "POST only",
    "vacation_end": "POST only",
    "calendar_make": "POST only (tests/accounts/test_calendar_feed.py)",
    "calendar_revoke": "POST only (tests/accounts/test_calendar_feed.py)",
    "calendar_feed": "an ICS feed, in the player's language (tests/accounts/test_calendar_feed.py)",
    "language_set": "POST only (the header's selector)",
    "display_set": "POST only (the header's display settings)",
}


# -- the message catalogues ----------------------------------------------------------------


@dataclass
class Message:
    msgid: str
    msgid_plural: str | None = None
    msgctxt: str | None = None
    msgstr: list[str] = field(default_factory=list)
    fuzzy: bool = False


def _unquote(text: str) -> str:
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(1)), text)


def read_po(path: Path) -> list[Message]:
    """The entries of a .po file (the header included, obsolete ones left out)."""
    messages: list[Message] = []
    current: Message | None = None
    key = ""
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        line = line.strip()
        if not line or line.startswith("#~"):
            if current is not None and not line.startswith("#~"):
                messages.append(current)
                current = None
            continue
        if line.startswith("#,"):
            current = current or Message(msgid="")
            current.fuzzy = current.fuzzy or "fuzzy" in line
            continue
        if line.startswith("#"):
            continue
        current = current or Message(msgid="")
        match = re.match(r'(msgctxt|msgid_plural|msgid|msgstr)(?:\[\d+\])?\s+"(.*)"$', line)
        if match:
            key, value = match.group(1), _unquote(match.group(2))
            if key == "msgstr":
                current.msgstr.append(value)
            else:
                setattr(current, key, value)
        else:
            value = _unquote(line[1:-1])
            if key == "msgstr":
                current.msgstr[-1] += value
            else:
                setattr(current, key, getattr(current, key) + value)
    return messages


def _nplurals(language: str) -> int:
    return int(PLURAL_FORMS[language].split("nplurals=")[1].split(";")[0])


def catalogue(language: str) -> list[Message]:
    return read_po(LOCALE / language / "LC_MESSAGES" / "django.po")


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_and_none_is_fuzzy(language: str) -> None:
    messages = catalogue(language)
    header, entries = messages[0], messages[1:]
    assert header.msgid == "" and not header.fuzzy, "the header must not be fuzzy"
    assert f"Language: {language}\n" in header.msgstr[0]
    assert f"Plural-Forms: {PLURAL_FORMS[language]}\n" in header.msgstr[0]
    nplurals = _nplurals(language)
    assert len(entries) > 400
    fuzzy = [m.msgid for m in entries if m.fuzzy]
    untranslated = [m.msgid for m in entries if not all(s.strip() for s in m.msgstr)]
    wrong_plurals = [m.msgid for m in entries if m.msgid_plural and len(m.msgstr) != nplurals]
    assert not fuzzy, f"{language}: fuzzy: {fuzzy[:10]}"
    assert not untranslated, f"{language}: untranslated: {untranslated[:10]}"
    assert not wrong_plurals, f"{language}: wrong number of plural forms: {wrong_plurals[:10]}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogue_matches_the_po_file(language: str) -> None:
    """`make messages` (which `make run` and `make test` run first) compiled the .po file."""
    mo = LOCALE / language / "LC_MESSAGES" / "django.mo"
    assert mo.exists(), f"{mo} is missing: run `make messages`"
    with mo.open("rb") as file:
        compiled = gettext.GNUTranslations(file)
    # One number for each plural form, in order: 1, then 2, then 5 (cs, sk).
    numbers = [1, 2, 5][: _nplurals(language)]
    stale = []
    for m in catalogue(language)[1:]:
        if m.msgid_plural is None:
            found = [
                compiled.gettext(m.msgid)
                if m.msgctxt is None
                else compiled.pgettext(m.msgctxt, m.msgid)
            ]
        else:
            found = [
                compiled.ngettext(m.msgid, m.msgid_plural, n)
                if m.msgctxt is None
                else compiled.npgettext(m.msgctxt, m.msgid, m.msgid_plural, n)
                for n in numbers
            ]
        if found != m.msgstr:
            stale.append(m.msgid)
    assert not stale, f"{mo} is out of date (run `make messages`): {stale[:5]}"


def test_the_rules_messages_are_in_the_catalogue() -> None:
    """makemessages extracts the rules' gettext_noop sentences (shown translated by the site)."""
    msgids = {m.msgid for m in catalogue("cs")}
    found = []
    for path in (Path(settings.BASE_DIR) / "games" / "rules").glob("*.py"):
        source = path.read_text(encoding="utf-8")
        for call in re.findall(r"gettext_noop\(\s*((?:\"[^\"]*\"\s*)+)\)", source):
            found.append("".join(re.findall(r"\"([^\"]*)\"", call)))
    assert "It is not your turn." in found
    missing = [text for text in found if text not in msgids]
    assert not missing, f"not extracted (run makemessages): {missing}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_point_city_building_name_is_translated(language: str) -> None:
    """The card file's names are data: games/rules/point_city/names.py marks them."""
    translated = {m.msgid for m in catalogue(language)[1:] if m.msgstr and m.msgstr[0]}
    names = {card.name for card in load_card_file()}
    assert names and not names - translated, sorted(names - translated)


# -- every page in every language ----------------------------------------------------------


def english_sentences(language: str) -> list[str]:
    """Catalogue sentences (three words or more, no placeholder) translated differently."""
    return [
        m.msgid
        for m in catalogue(language)[1:]
        if m.msgid_plural is None
        and "%" not in m.msgid
        and len(m.msgid.split()) >= 3
        and m.msgstr[0] != m.msgid
    ]


def visible(page: str) -> str:
    """The page's text and attributes, without scripts and styles, entities decoded."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S | re.I)
    return html.unescape(page)


def seats_for(rules: Rules) -> int:
    return max(2, rules.min_players)


def start(rules: Rules, players: list[User], seats: int) -> Table:
    table = table_create(user=players[0], game=rules.slug, num_seats=seats, seconds_per_move=86400)
    for user in players[1:seats]:
        table_join(table_id=table.pk, user=user)
    table.refresh_from_db()
    return table


@pytest.fixture
def site(db) -> dict:
    """Players, and for every game a running table (and a solo one if it has one) and a
    finished one."""
    players = [UserFactory(username=f"speaker{i}") for i in range(max(4, *_max_seats()))]
    running, finished = [], []
    for rules in playable_games():
        seats = seats_for(rules)
        running.append(start(rules, players, seats))
        if rules.min_players == 1:
            running.append(start(rules, players, 1))
        finished.append(play_to_the_end(start(rules, players, seats), random.Random(3)))
    assert all(table.is_running for table in running)
    assert all(table.is_finished for table in finished)
    return {"players": players, "running": running, "finished": finished}


def _max_seats() -> list[int]:
    return [seats_for(rules) for rules in playable_games()]


def page_urls(site: dict, signed_in: bool) -> list[tuple[str, str, int]]:
    """(route name, url, expected status) for every page a player or a visitor opens."""
    player = site["players"][0]
    urls = [("lobby", reverse("lobby"), 200)]
    for rules in playable_games():
        urls.append(("game_page", reverse("game_page", args=[rules.slug]), 200))
        urls.append(("leaderboard", reverse("leaderboard", args=[rules.slug]), 200))
    urls.append(("player_profile", reverse("player_profile", args=[player.username]), 200))
    for table in site["running"] + site["finished"]:
        urls.append(("table_detail", reverse("table_detail", args=[table.pk]), 200))
        urls.append(("table_log", reverse("table_log", args=[table.pk]), 200))
    for table in site["finished"]:
        urls.append(("table_replay", reverse("table_replay", args=[table.pk]), 200))
        urls.append(("table_replay", reverse("table_replay", args=[table.pk]) + "?step=1", 200))
    if signed_in:
        urls += [
            ("profile_edit", reverse("profile_edit"), 200),
            ("play_settings", reverse("play_settings"), 200),
            ("account_email", reverse("account_email"), 200),
            ("account_change_password", reverse("account_change_password"), 200),
            ("account_data", reverse("account_data"), 200),
            (
                "unsubscribe",
                reverse("unsubscribe", args=[user_unsubscribe_token(user=player)]),
                200,
            ),
        ]
    else:
        urls += [
            ("account_login", reverse("account_login"), 200),
            ("account_signup", reverse("account_signup"), 200),
            ("account_reset_password", reverse("account_reset_password"), 200),
            ("account_closed", reverse("account_closed"), 200),
            ("unsubscribe", reverse("unsubscribe", args=["not-a-token"]), 400),
        ]
    return urls


def site_routes() -> set[str]:
    names = set()
    for module in (games_urls, accounts_urls):
        for pattern in module.urlpatterns:
            assert isinstance(pattern, URLPattern)
            names.add(pattern.name)
    return names


def test_every_route_of_the_site_is_a_page_checked_here_or_named_as_not_a_page() -> None:
    unknown = site_routes() - PAGES - set(NOT_PAGES)
    assert not unknown, f"new routes: render them in test_i18n's page_urls or list them: {unknown}"


def check_page(response, language: str, sentences: list[str]) -> list[str]:
    problems = []
    page = response.content.decode()
    if not re.search(rf'<html lang="{language}"[\s>]', page):
        problems.append(f'no <html lang="{language}">')
    if f">{LOBBY[language]}</a>" not in page:
        problems.append(f"the header's link to the lobby is not {LOBBY[language]!r}")
    if 'name="language"' not in page:
        problems.append("no language selector in the header")
    text = visible(page)
    left = [sentence for sentence in sentences if sentence in text]
    if left:
        problems.append(f"English left: {left[:3]}")
    return problems


@pytest.mark.parametrize("signed_in", [True, False], ids=["player", "visitor"])
def test_every_page_in_every_language(site, signed_in: bool) -> None:
    player = site["players"][0]
    visited = {name for name, _url, _status in page_urls(site, True) + page_urls(site, False)}
    assert visited == PAGES
    failures = []
    for language in LANGUAGES:
        sentences = english_sentences(language) if language in TRANSLATED else []
        if signed_in:
            player.language = language
            player.save(update_fields=["language"])
            client = client_for(player)
        else:
            client = Client()
            client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
        for name, url, status in page_urls(site, signed_in):
            response = client.get(url)
            if response.status_code != status:
                failures.append(f"{language} {url} ({name}): status {response.status_code}")
                continue
            for problem in check_page(response, language, sentences):
                failures.append(f"{language} {url} ({name}): {problem}")
    assert not failures, "\n".join(failures)


def test_the_outage_page_is_in_the_visitors_language(rf) -> None:
    with translation.override("ca"):
        page = unavailable(rf.get("/")).content.decode()
    assert re.search(r'<html lang="ca"[\s>]', page)
    assert "Tornem de seguida" in page and "Torna-ho a provar" in page


def test_a_players_language_choice_is_remembered_on_their_profile(alice) -> None:
    client_for(alice).post(reverse("language_set"), {"language": "sk", "next": "/"})
    alice.refresh_from_db()
    assert alice.language == "sk"
    page = client_for(alice).get(reverse("lobby")).content.decode()  # a new client: no cookie
    assert re.search(r'<html lang="sk"[\s>]', page) and ">Herňa</a>" in page


# -- e-mails and the rules' refusals ---------------------------------------------------------


def test_a_reminder_to_a_czech_player_is_in_czech(running_table) -> None:
    for seat in running_table.seats.select_related("user"):
        seat.user.language = "cs"
        seat.user.save(update_fields=["language"])
    sweeps.sweep_reminders(timezone.now() + dt.timedelta(hours=2))
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.subject == "Jedna hra čeká na tvůj tah"
    body, (page, _mimetype) = message.body, message.alternatives[0]
    for text in (body, html.unescape(page)):
        assert "Ahoj " in text
        assert "Tyto stoly čekají na tvůj tah:" in text
        assert "Táhni do " in text
        assert not [s for s in english_sentences("cs") if s in text]
    assert "Zrušit tyto e-maily jedním kliknutím:" in body


def test_a_reminder_to_a_player_without_a_language_is_in_english(running_table) -> None:
    sweeps.sweep_reminders(timezone.now() + dt.timedelta(hours=2))
    assert mail.outbox[0].subject == "A game is waiting for your move"
    assert "These tables are waiting for your move:" in mail.outbox[0].body


def test_a_move_out_of_turn_is_refused_in_the_players_language(running_table) -> None:
    rules = get_rules(running_table.game)
    state = rules.from_json(running_table.state)
    active = rules.active_seats(state)[0]
    waiting = running_table.seats.exclude(position=active).select_related("user").first()
    waiting.user.language = "hu"
    waiting.user.save(update_fields=["language"])
    action = rules.legal_actions(state, active)[0]
    response = client_for(waiting.user).post(
        reverse("table_act", args=[running_table.pk]),
        {"action": json.dumps(action), "version": running_table.version},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nem te következel." in page
    assert "It is not your turn." not in page


@pytest.mark.django_db(transaction=True)
def test_a_live_board_update_comes_in_the_viewers_language(running_table) -> None:
    """The websocket renders each viewer's board: in their profile's or their cookie's language."""
    player = running_table.seats.get(position=0).user
    player.language = "cs"
    player.save(update_fields=["language"])
    rules = get_rules(running_table.game)
    state = rules.from_json(running_table.state)
    active = rules.active_seats(state)[0]
    mover = running_table.seats.get(position=active).user
    action = rules.legal_actions(state, active)[0]

    async def scenario() -> list[str]:
        sockets = []
        for user, cookies in [(player, {}), (AnonymousUser(), {"django_language": "hu"})]:
            # The board's frames; the player's bell may come before them on the same socket.
            socket = BoardSocket(URLRouter(websocket_urlpatterns), f"/ws/t/{running_table.pk}/")
            socket.scope["user"] = user
            socket.scope["cookies"] = cookies
            connected, _ = await socket.connect()
            assert connected
            sockets.append(socket)
        await database_sync_to_async(move_play)(
            table_id=running_table.pk, user=mover, action=action, version=running_table.version
        )
        frames = [await socket.receive_from(timeout=5) for socket in sockets]
        for socket in sockets:
            await socket.disconnect()
        return frames

    czech, hungarian = async_to_sync(scenario)()
    assert "Průběh hry" in czech and "Game log" not in czech
    assert "Játéknapló" in hungarian and "Game log" not in hungarian


@pytest.mark.django_db
def test_a_players_language_holds_for_their_request_only(make_user) -> None:
    """A Czech player's page is in Czech; the thread's next request (or next test) is not:
    the middleware used to leave Czech active after the answer."""
    player = make_user(language="cs")
    client = Client()
    client.force_login(player)
    translation.activate("en")
    response = client.get(reverse("lobby"))
    assert response.headers["Content-Language"] == "cs"
    assert translation.get_language() == "en"
