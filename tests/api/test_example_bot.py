"""The example bot of docs/api.md plays a whole game of every game, as its readers would run
it: the program is the document's own Python block (so the two cannot drift), run in a process
of its own against a live server (uvicorn, the site's bots moving in its thread), with nothing
but its token and the site's address. It must sit out a whole game through the events stream
and the endpoints alone, then stop (``--games 1``) with status 0.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from games.models import Move, Table
from games.services.tables import table_create, table_seat_bot
from tests.factories import UserFactory
from tests.support.api import token_for
from tests.support.live_site import site_start
from tests.support.processes import ROOT, stop

pytestmark = pytest.mark.django_db(transaction=True)

DOCUMENT = ROOT / "docs" / "api.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
#: The seats of each game's table: the program's at seat 0, the site's bots at the others.
SEATS = {"district-noir": 2, "slide": 2, "gnav": 4, "point-city": 2}
LEVEL = "easy"  # the quickest of the site's bots: one look ahead
#: The longest a whole game may take, the program's start included. Measured on two cores (the
#: site's bots moving at once): District Noir 4-8 s, Slide 6-12 s, a Gnav match 2-5 s, Point
#: City 5-8 s; with two more processes spinning, 14-22 s, 17-20 s, 6-12 s and 10-18 s. A
#: wake-up the stream misses costs a move up to half a minute (its catch-up read), so this
#: allows several.
GAME_SECONDS = 300


@dataclass(frozen=True)
class Site:
    url: str
    log: Path

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])


def python_blocks(markdown: str) -> list[str]:
    return PYTHON_BLOCK.findall(markdown)


@pytest.fixture(scope="module")
def site(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Site]:
    """One server for the module's games, its bots moving without a pause."""
    log = tmp_path_factory.mktemp("site") / "uvicorn.log"
    with log.open("w") as out, django_db_blocker.unblock():
        url, process = site_start({"BOT_MOVE_DELAY_SECONDS": "0"}, log=out)
        yield Site(url, log)
        stop(process)


@pytest.fixture(scope="module")
def bot_program(tmp_path_factory) -> Path:
    """The document's program, in a file of its own."""
    blocks = python_blocks(DOCUMENT.read_text())
    assert len(blocks) == 1, "docs/api.md shows one program: its example bot"
    program = tmp_path_factory.mktemp("bot") / "bot.py"
    program.write_text(blocks[0])
    return program


def test_the_document_shows_one_whole_program() -> None:
    blocks = python_blocks("text\n```python\nimport httpx\n```\n```\nnot Python\n```\n")
    assert blocks == ["import httpx\n"]
    (program,) = python_blocks(DOCUMENT.read_text())
    compile(program, "bot.py", "exec")
    assert "import httpx" in program and "--games" in program


def _game_so_far(table: Table) -> str:
    table.refresh_from_db()
    moves = list(table.moves.values_list("position", "by"))
    return f"table {table.pk} {table.status} at version {table.version}, moves {moves[-12:]}"


@pytest.mark.parametrize("game", list(SEATS))
def test_the_example_bot_plays_a_whole_game(site: Site, bot_program: Path, game: str) -> None:
    player = UserFactory()
    secret = token_for(player, "read", "play")
    made = httpx.post(
        f"{site.url}/api/account/bot", headers={"Authorization": f"Bearer {secret}"}, timeout=30
    )
    assert made.status_code == 200, made.text
    assert made.json()["is_bot"] and made.json()["name"].endswith("(bot)")
    table = table_create(user=player, game=game, num_seats=SEATS[game], seconds_per_move=86400)
    for _seat in range(SEATS[game] - 1):
        table_seat_bot(table_id=table.pk, user=player, level=LEVEL)
    table.refresh_from_db()
    assert table.status == Table.Status.RUNNING

    started = time.monotonic()
    try:
        run = subprocess.run(
            [sys.executable, str(bot_program), "--games", "1"],
            env={"SITE": site.url, "TOKEN": secret, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=GAME_SECONDS,
        )
    except subprocess.TimeoutExpired as late:
        pytest.fail(
            f"the bot did not see its game end within {GAME_SECONDS} s: {_game_so_far(table)}\n"
            f"its errors: {late.stderr!r}\nthe server's log:\n{site.log_tail()}"
        )
    took = time.monotonic() - started
    assert run.returncode == 0, f"{run.stderr}\n{_game_so_far(table)}\n{site.log_tail()}"

    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, _game_so_far(table)
    assert table.outcome and len(table.outcome["ranks"]) == SEATS[game]
    by = list(Move.objects.filter(table=table, position=0).values_list("by", flat=True))
    assert by and set(by) == {Move.By.PLAYER}, "the program made every move of its seat"
    others = set(Move.objects.filter(table=table, position__gt=0).values_list("by", flat=True))
    assert others == {Move.By.BOT}
    print(f"{game}: {took:.1f} s, {len(by)} moves of the program's, {table.moves_played} in all")
