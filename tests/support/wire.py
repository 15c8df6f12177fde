"""What every page of a seeded game is sent by its socket, move by move: for the tests and the
bench of the socket's deflate (tests/games/boards/test_wire_size.py, bench/deflate.py)."""

from __future__ import annotations

import random
from itertools import count

from games import boards
from games.models import Table
from games.rules import get_rules

# Unsaved tables, each with an id of its own: a public part is cached by table and version.
_table_ids = count(900_000)


def page_messages(slug: str, seats: int, seed: int, moves: int) -> list[list[bytes]]:
    """Each page's messages (every seat's page, then a spectator's), in order, over the first
    ``moves`` moves of a seeded game played at random: the public part, and the page's private
    part when it changed, as ``games.live.consumers`` sends them."""
    rules = get_rules(slug)
    rng = random.Random(seed)
    state = rules.setup(seats, seed)
    table = Table(
        pk=next(_table_ids),
        game=slug,
        num_seats=seats,
        status=Table.Status.RUNNING,
        version=1,
        invite_code="wire",
        seconds_per_move=86400,
    )
    names = [f"player {n}" for n in range(seats)]
    pages = [*range(seats), None]
    sent_private = dict.fromkeys(pages, "")
    messages: dict[int | None, list[bytes]] = {page: [] for page in pages}
    for _move in range(moves):
        if rules.outcome(state) is not None:
            break
        table.state = rules.to_json(state)
        table.version += 1
        public = boards.public_part(table, [], state=state)
        for page in pages:
            private, _digest, _turn = boards.private_part(
                table, boards.Audience(page, None), names, state=state, public_log=public.log_digest
            )
            message = public.html + (private if private != sent_private[page] else "")
            sent_private[page] = private
            messages[page].append(message.encode())
        seat = rules.active_seats(state)[0]
        state = rules.apply(state, seat, rng.choice(rules.legal_actions(state, seat)))
    return list(messages.values())
