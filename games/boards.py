"""A table's board, rendered per audience, not per page (see docs/architecture.md).

A board has two parts:

- the **public part** (``#board-public`` and ``#board-public-end``, the board's top and its
  end, with the private part between them): what a spectator sees, rendered from
  ``view(state, None)`` once per (table, version, language) and kept in Django's cache, so
  every seat and spectator gets the same bytes; it carries the board's version, its poll and
  the hidden ``version`` field of the move form;
- the **private part** (``#board-private``): the viewer's own cards and moves (the move
  form), rendered from ``view(state, seat)``; small, and empty for a spectator of a running
  game. Once the game is over it holds no hand (what was hidden is face up in the public part)
  but what comes next for this viewer, spectators included: play again or join the new table,
  the replay, the lobby. Its ``data-digest`` lets a push leave it out when it did not change
  for that page.

Neither part carries a CSRF token (pages send it in ``hx-headers``) or a relative time
(clocks are ``<time datetime>`` counted down in the browser). The views, the websocket
consumer and the replay all render boards here; templates see plain data only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.template.loader import get_template
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from games import board_cache
from games.catalog import get_game
from games.models import Seat, Table
from games.rules import AnyRules, View, get_rules
from games.selectors.pace import SEAT_PACE, seats_paced
from games.selectors.rematches import next_table_for
from games.selectors.replays import ResultRow, hides_something, table_ranking
from games.selectors.tables import seat_names

# The board shows the latest log entries only, so that rendering and sending it costs the
# same at move 10 and move 300; a link opens the whole log (``table_log``).
LOG_TAIL = 20
CSRF_MARK = "<!--csrf-->"


@dataclass(frozen=True)
class Audience:
    """Who a private part is for: a seat (``position``), or a spectator (signed in or not)."""

    position: int | None
    user_id: int | None = None

    @classmethod
    def of(cls, user: Any, seats: list[Seat]) -> Audience:
        user_id = user.pk if user is not None and user.is_authenticated else None
        position = next((s.position for s in seats if user_id and s.user_id == user_id), None)
        return cls(position=position, user_id=user_id)


@dataclass(frozen=True)
class PublicPart:
    html: SafeString  # both elements: the board's top, then its end
    names: list[str]  # the seats' names in this language: the private part needs them too
    log_digest: str  # of the log entries it shows: a seat whose own differ sees its own


def log_digest(entries: list[Any]) -> str:
    text = json.dumps(entries[-LOG_TAIL:], sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


@dataclass(frozen=True)
class Board:
    version: int
    public: SafeString
    private: SafeString
    private_digest: str
    my_turn: bool

    @property
    def html(self) -> SafeString:
        """The whole board (``#board``): the public part's top, the private part, the public
        part's end, as a page or a poll shows it."""
        top, end = split_public(self.public)
        return mark_safe(
            f'<div id="board" class="board-area" tabindex="-1">{top}{self.private}{end}</div>'
        )


PUBLIC_END = '<div id="board-public-end"'


def split_public(html: str) -> tuple[str, str]:
    at = html.find(PUBLIC_END)
    return (html, "") if at < 0 else (html[:at], html[at:])


@dataclass
class SentParts:
    """What one open page shows now, so that a push sends it only what changed."""

    version: int = -1
    private_digest: str | None = None


def state_of(table: Table, state: Any = None) -> Any:
    """The table's state as its rules' object (``state``, if the caller has it already)."""
    if state is not None or table.state is None:
        return state
    return get_rules(table.game).from_json(table.state)


def end_context(
    table: Table, rules: AnyRules, state: Any, view: View, rows: list[ResultRow]
) -> dict[str, Any]:
    """What the end of a game shows everyone: the winners' names (first place, shared or not,
    from the ``table_ranking`` ``rows``), and below the final board each hand that a spectator could
    not see, face up, as the replay's last step shows it (the seed is public now: nothing is
    secret any more); no hand where nothing was hidden."""
    views = [rules.view(state, seat) for seat in range(table.num_seats)]
    hidden = [seat for seat, seat_view in enumerate(views) if hides_something(seat_view, view)]
    game = get_game(table.game)
    return {
        "winners": [row.player_name for row in rows if row.rank == 0],
        "reveal": views if hidden else [],
        "hidden_seats": hidden,
        "reveal_template": game.reveal_template,
        "private_template": game.templates.private,
    }


def log_context(view: View | None) -> dict[str, Any]:
    log = view["log"] if view else []
    return {
        "log_entries": log[-LOG_TAIL:],
        "log_earlier": max(0, len(log) - LOG_TAIL),
        "log_total": len(log),
    }


def squeezed(html: str) -> str:
    """``html`` with every run of white space made one space: what a browser shows of it (the
    boards have no <pre> or <textarea>), a tenth fewer bytes to compress and send. By
    ``str.split`` (the same white space as ``re``'s ``\\s``), four times quicker than
    ``re.sub``: it ran on every part drawn, 4% of the web process's time a move."""
    words = html.split()
    if not words:
        return " " if html else ""
    inner = " ".join(words)
    return f"{' ' if html[0].isspace() else ''}{inner}{' ' if html[-1].isspace() else ''}"


def public_part(table: Table, seats: list[Seat] | None = None, *, state: Any = None) -> PublicPart:
    """The public part of the table at its version, from the cache or rendered (and cached).

    ``seats`` (users loaded) are read when not given and the part is not cached yet. Each
    player's pace badge is as stored when the version was first drawn (a little stale at
    most: the job rewrites it every minute); read with the seats when they were read with
    ``SEAT_PACE``, else in one query.
    """
    key = board_cache.public_key(table.pk, table.version)
    cached = board_cache.get(key)
    if cached is not None:
        return PublicPart(mark_safe(cached[0]), *cached[1:])
    if seats is None:
        seats = list(table.seats.select_related("user", SEAT_PACE))
    seats_paced(seats)
    state = state_of(table, state)
    rules = get_rules(table.game)
    game = get_game(table.game)
    view = rules.view(state, None) if state is not None else None
    names = seat_names(seats, table.num_seats)
    rows = table_ranking(table, seats)
    context = {
        "table": table,
        "game": game,
        "seats": seats,
        "view": view,
        "names": names,
        "game_template": game.templates.public,
        "log_template": game.templates.log_entry,
        "ranking": rows,
        "poll_ms": settings.TABLE_POLL_MS,
        "polling": table.is_open or table.is_running,
        **log_context(view),
        **(end_context(table, rules, state, view, rows) if view and table.is_finished else {}),
    }
    with timezone.override(dt.UTC):  # the same for every viewer; the browser localises
        html = squeezed(get_template("tables/partials/public.html").render(context))
    digest = log_digest(view["log"] if view else [])
    board_cache.put(key, (str(html), names, digest))
    return PublicPart(mark_safe(html), names, digest)


def private_part(
    table: Table,
    audience: Audience,
    names: list[str],
    *,
    state: Any = None,
    public_log: str = "",
    csrf_input: str = "",
) -> tuple[SafeString, str, bool]:
    """The private part for ``audience``: its HTML, that HTML's digest, and whether the game
    waits for this seat.

    ``csrf_input``: only for a whole page, whose forms must also work without JavaScript.
    ``public_log``: the digest of the public part's log; the seat's own log is shown only
    where it differs from it (where it shows the seat's own cards).
    """
    rules = get_rules(table.game)
    view = None
    my_turn = False
    if audience.position is not None and table.state is not None:
        state = state_of(table, state)
        view = rules.view(state, audience.position)
        my_turn = table.is_running and audience.position in rules.waiting_seats(state)
    own_log = None
    if view is not None and log_digest(view["log"]) != public_log:
        own_log = log_context(view)
    templates = get_game(table.game).templates
    context = {
        "table": table,
        "audience": audience,
        "view": view,
        "names": names,
        "my_turn": my_turn,
        "csrf_input": mark_safe(CSRF_MARK) if csrf_input else "",
        "game_template": templates.private,
        "log_template": templates.log_entry,
        "own_log": own_log,
        "invite_url": settings.SITE_URL + reverse("table_invite", args=[table.invite_code])
        if table.is_open
        else "",
        # What comes next at a finished table (tables/partials/next_steps.html).
        "next_table": next_table_for(table, audience.user_id) if table.is_finished else None,
        **(own_log or {}),
    }
    # A spectator of a running game has nothing of its own: no render at all. At the end,
    # everyone gets what comes next (the replay, the lobby, a rematch).
    needed = view is not None or table.is_open or table.is_finished
    inner = squeezed(get_template("tables/partials/private.html").render(context)) if needed else ""
    # The digest says what the page shows, whichever response's CSRF token its forms carry.
    digest = hashlib.blake2b(inner.encode(), digest_size=8).hexdigest()
    inner = inner.replace(CSRF_MARK, csrf_input)
    html = (
        f'<div id="board-private" class="board-private" data-digest="{digest}"'
        f' data-my-turn="{"1" if my_turn else ""}">{inner}</div>'
    )
    return mark_safe(html), digest, my_turn


def board_for(
    table: Table,
    audience: Audience,
    seats: list[Seat] | None = None,
    *,
    state: Any = None,
    csrf_input: str = "",
) -> Board:
    """Both parts of the board for ``audience``; ``seats`` are read only if the public part
    is not in the cache yet, and the state parsed only if a part needs it."""
    if audience.position is not None:
        state = state_of(table, state)
    public = public_part(table, seats, state=state)
    private, digest, my_turn = private_part(
        table,
        audience,
        public.names,
        state=state,
        public_log=public.log_digest,
        csrf_input=csrf_input,
    )
    return Board(table.version, public.html, private, digest, my_turn)


def message_html(message: str) -> SafeString:
    """A refusal's reason, for ``#board-message``."""
    if not message:
        return mark_safe("")
    return mark_safe(f'<p class="message error" role="alert">{escape(message)}</p>')


def oob(html: str, element_id: str) -> str:
    """``html`` (whose first tag has ``id="element_id"``) marked as an out-of-band swap."""
    return html.replace(f'id="{element_id}"', f'id="{element_id}" hx-swap-oob="true"', 1)


def changed_parts(board: Board, sent: SentParts) -> str:
    """The parts of ``board`` that the page described by ``sent`` does not show yet (each an
    out-of-band swap, by id), and ``sent`` updated to match. Empty when nothing changed."""
    parts = []
    if board.version != sent.version:
        parts.append(board.public)
    if board.private_digest != sent.private_digest:
        parts.append(board.private)
    sent.version, sent.private_digest = board.version, board.private_digest
    return "".join(parts)


def changed_since(table_id: int, audience: Audience, sent: SentParts) -> str:
    """What a page showing ``sent`` lacks of the table's board as it is now, for a push.

    One query (the table row) once the version's public part is in the cache; the render
    that fills the cache reads the seats too, once per version and language.
    """
    table = Table.objects.filter(pk=table_id).first()
    if table is None:
        return ""
    return changed_parts(board_for(table, audience), sent)


def replay_context(table: Table, seats: list[Seat], view: View) -> dict[str, Any]:
    """What a replay's step needs: the spectator's ``view`` of that step, drawn with the game's
    public template (and, for the hands revealed at the end, its private one)."""
    game = get_game(table.game)
    return {
        "table": table,
        "game": game,
        "view": view,
        "names": seat_names(seats, table.num_seats),
        "public_template": game.templates.public,
        "private_template": game.templates.private,
        "log_template": game.templates.log_entry,
        "ranking": table_ranking(table, seats),
    }
