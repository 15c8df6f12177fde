"""Whole tournaments run as the site runs them, and their standings worked out again from what
was stored (tests/tournaments/test_running.py, test_windows.py, test_withdrawals.py,
test_sweep_workers.py).

A run: the creator makes the tournament and players enter it through
``tournaments.services.entries``; beat's sweep (``sweep_tournaments(now=...)``) starts it;
every game is finished through games' services as its players and clocks would finish it
(random legal moves through ``move_play``, a clock run out through ``seat_time_out`` or the
deadline sweep, a game played out by ``table_play_out``); its ``GameEnded`` reaches
``tournaments.jobs`` through games' events signal (inline in tests), which counts it, closes
the round and opens the next. Between games the sweep runs as beat would, and finds nothing
left undone.

The checks read only the stored facts: each pairing's table (its seats and
``Table.outcome["ranks"]``), the pairings without a table (a bye, or a game a withdrawn player
forfeited), and who withdrew. Points, tie-breaks, places and the winner are worked out here
from their definitions (issue #29), not by ``tournaments.pairing``, and compared with what the
services stored in ``Entry``.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.jobs.sweeps import sweep_deadlines
from games.models import Seat, Table
from games.rules import get_rules
from games.services.bot_moves import bot_turn_play, seat_time_out, table_play_out
from games.services.events import table_events
from games.services.moves import move_play
from tournaments.models import Entry, Format, Pairing, Round, Tournament
from tournaments.services.entries import TournamentSettings, tournament_create, tournament_join
from tournaments.services.rounds import sweep_tournaments

HOUR = dt.timedelta(hours=1)
#: pytest-django's ``django_capture_on_commit_callbacks``: the test's transaction never
#: commits, so the events a service publishes "on commit" are run when its block ends.
Capture = Callable[..., AbstractContextManager[Any]]
#: The receivers of games' events that these runs do without: the pages' live push and
#: community's notes are other apps' (and tested there), and cost most of a move's time.
QUIET = ("live-push", "community-notes")


@contextmanager
def game_events_for_tournaments() -> Iterator[None]:
    """Games' events reach only the bot turns and the tournaments while the block runs."""
    saved = list(table_events.receivers)
    with table_events.lock:
        table_events.receivers = [r for r in saved if r[0][0] not in QUIET]
        table_events.sender_receivers_cache.clear()
    try:
        yield
    finally:
        with table_events.lock:
            table_events.receivers = saved
            table_events.sender_receivers_cache.clear()


# -- making and running one --------------------------------------------------------------


def tournament_made(
    *, creator: User, players: Sequence[User], now: dt.datetime | None = None, **chosen: Any
) -> Tournament:
    """A tournament starting an hour from ``now``, ``players`` entered in this order."""
    now = now or timezone.now()
    settings: dict[str, Any] = {
        "name": "Test cup",
        "game": "district-noir",
        "format": Format.SWISS,
        "table_size": 2,
        "seconds_per_move": 86400,
        "starts_at": now + HOUR,
        "min_players": max(2, int(chosen.get("table_size", 2))),
        "max_players": 64,
        **chosen,
    }
    tournament = tournament_create(user=creator, chosen=TournamentSettings(**settings), now=now)
    for player in players:
        tournament_join(tournament_id=tournament.pk, user=player, now=now)
    return tournament


def tournament_tables(tournament: Tournament, *, running: bool = True) -> list[Table]:
    """The tournament's tables (still running ones only), oldest first."""
    tables = Table.objects.filter(tournament_pairing__round__tournament=tournament)
    if running:
        tables = tables.filter(status=Table.Status.RUNNING)
    return list(tables.order_by("pk"))


def sweep(capture: Capture, now: dt.datetime) -> int:
    with capture(execute=True):
        return sweep_tournaments(now=now)


def _seats(table: Table) -> list[Seat]:
    return list(Seat.objects.filter(table=table).select_related("user").order_by("position"))


def move_as_player(table: Table, rng: random.Random, capture: Capture, *, skip: int = -1) -> bool:
    """One random legal move of a seat to act that a player holds (not ``skip``); whether
    one was played."""
    table.refresh_from_db()
    if table.status != Table.Status.RUNNING:
        return False
    rules = get_rules(table.game)
    state = rules.from_json(table.state)
    seats = {s.position: s for s in _seats(table)}
    humans = [p for p in rules.active_seats(state) if not seats[p].is_bot and p != skip]
    if not humans:
        return False
    position = rng.choice(humans)
    action = rng.choice(rules.legal_actions(state, position))
    with capture(execute=True):
        move_play(
            table_id=table.pk, user=seats[position].user, action=action, version=table.version
        )
    return True


def _time_out(table: Table, seat: Seat, capture: Capture) -> bool:
    """The seat's clock runs out: the deadline sweep plays it when it is the only seat due on
    the site, else games' own timeout of that seat (what the sweep calls for each). Whether
    the sweep did."""
    assert seat.deadline is not None
    due = Seat.objects.filter(is_waiting=True, deadline__lte=seat.deadline)
    alone = list(due.values_list("pk", flat=True)) == [seat.pk]
    with capture(execute=True):
        if alone:
            assert sweep_deadlines(now=seat.deadline) == 1
        else:
            assert seat_time_out(table_id=table.pk, position=seat.position, now=seat.deadline)
    return alone


def finish(
    table: Table, how: str, rng: random.Random, capture: Capture, *, lost: bool = False
) -> str:
    """Plays ``table`` to its end.

    - ``moves``: its players play random legal moves to the end;
    - ``play_out``: a few moves, then the game is played out (``table_play_out``: the seats
      to move lose on time, bots play the rest, as at a round window's end);
    - ``timeout``: one player stops playing: their clock runs out until a bot takes their seat
      for good (a loss), the others play on.

    ``lost``: its events are never sent (the sweep must count the end). Returns ``how``, or
    ``swept timeout`` when the deadline sweep played a timeout of it.
    """
    ended = how
    if how == "play_out":
        for _ in range(rng.randint(0, 3)):
            move_as_player(table, rng, capture)
        if lost:
            table_play_out(table_id=table.pk)
        else:
            with capture(execute=True):
                table_play_out(table_id=table.pk)
    elif how in ("moves", "timeout"):
        quitter = rng.randrange(table.num_seats) if how == "timeout" else -1
        for _ in range(5000):
            table.refresh_from_db()
            if table.status != Table.Status.RUNNING:
                break
            seat = next((s for s in _seats(table) if s.position == quitter), None)
            if seat is not None and seat.is_waiting and not seat.is_bot:
                if _time_out(table, seat, capture):
                    ended = "swept timeout"
            elif not move_as_player(table, rng, capture, skip=quitter):
                # Only bots to move (their turns run on commit): one more, to be sure.
                with capture(execute=True):
                    bot_turn_play(table_id=table.pk, version=table.version)
    else:
        raise ValueError(how)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED, (table.pk, how)
    return ended


def run_to_end(
    tournament: Tournament,
    *,
    rng: random.Random,
    capture: Capture,
    ways: Sequence[tuple[str, float]] = (("play_out", 0.7), ("moves", 0.15), ("timeout", 0.15)),
    first: Sequence[str] = (),
    between: Callable[[Tournament], None] | None = None,
) -> list[str]:
    """Starts the tournament with the sweep and finishes its games one at a time, the first
    ones each as ``first`` says, the others one way of ``ways`` (by weight), until it ends. The
    sweep runs after each game, as beat would, and finds nothing to do: the events counted it
    all, except a game finished ``lost`` (played out, its events never sent), which the sweep
    must count. ``between``: called after each game. The ways the games ended, in order."""
    clock = tournament.starts_at
    assert sweep(capture, clock) == 1
    names, weights = zip(*ways, strict=True)
    used: list[str] = []
    for _ in range(2000):
        tournament.refresh_from_db()
        if tournament.status != Tournament.Status.RUNNING:
            return used
        tables = tournament_tables(tournament)
        assert tables, "a running tournament with no game under way"
        how = first[len(used)] if len(used) < len(first) else rng.choices(names, weights)[0]
        lost = how == "lost"
        used.append(finish(tables[0], "play_out" if lost else how, rng, capture, lost=lost))
        if lost:
            used[-1] = "lost"
        clock += HOUR
        assert sweep(capture, clock) == (1 if lost else 0)
        if between is not None:
            between(tournament)
    raise AssertionError("the tournament did not end")


# -- what was stored, read back ----------------------------------------------------------


@dataclass(frozen=True)
class Played:
    """One pairing as the stored facts say: who sat where and each one's place (1 the best,
    ties shared); a bye has one seat and no places."""

    season: int
    round: int
    group: int
    game_number: int
    seats: tuple[int, ...]
    places: tuple[int, ...]
    table_id: int | None
    forfeit: bool = False

    @property
    def bye(self) -> bool:
        return len(self.seats) == 1


def stored_results(tournament: Tournament) -> list[Played]:
    """Every pairing of the tournament, in order: a table's places from its outcome's ranks,
    a game without a table as lost by its withdrawn players (the others share the first place;
    in a knockout, where a match must have a winner, the better seed of two who both withdrew
    takes it), a bye as it is."""
    withdrawn = set(
        Entry.objects.filter(tournament=tournament, withdrawn_at__isnull=False).values_list(
            "user_id", flat=True
        )
    )
    seeds = dict(Entry.objects.filter(tournament=tournament).values_list("user_id", "seed"))
    found: list[Played] = []
    pairings = (
        Pairing.objects.filter(round__tournament=tournament)
        .select_related("round", "table")
        .prefetch_related("seats__entry", "table__seats")
        .order_by("round__season", "round__number", "group", "game_number", "pk")
    )
    for pairing in pairings:
        assert pairing.done, f"pairing {pairing.pk} of a finished tournament is not done"
        entrants = tuple(s.entry.user_id for s in sorted(pairing.seats.all(), key=_position))
        where = (pairing.round.season, pairing.round.number, pairing.group, pairing.game_number)
        if pairing.is_bye:
            assert pairing.table is None and len(entrants) == 1
            found.append(Played(*where, entrants, (), None))
        elif pairing.table is None:
            losers = {p for p in entrants if p in withdrawn}
            assert losers, f"pairing {pairing.pk}: no table, no bye, nobody withdrew"
            if tournament.format == Format.KNOCKOUT and losers == set(entrants):
                losers.remove(min(entrants, key=lambda p: seeds[p]))  # a match has a winner
            places = tuple(2 if p in losers else 1 for p in entrants)
            found.append(Played(*where, entrants, places, None, forfeit=True))
        else:
            table = pairing.table
            assert table.status == Table.Status.FINISHED
            seats = tuple(s.user_id for s in sorted(table.seats.all(), key=_position))
            assert seats == entrants, "the table seats the pairing's players in its order"
            ranks = table.outcome["ranks"]
            found.append(Played(*where, seats, tuple(int(r) + 1 for r in ranks), table.pk))
    return found


def _position(seat: Any) -> int:
    return int(seat.position)


def games_of(results: Iterable[Played]) -> list[Played]:
    return [r for r in results if not r.bye]


# -- the standings, from their definitions -----------------------------------------------


def table_points(places: Sequence[int]) -> list[float]:
    """n - 1 for the first of n, down to 0 for the last; tied players share the points of the
    places they cover (a two-player game: a win 1, a draw 0.5, a loss 0)."""
    n = len(places)
    points = []
    for mine in places:
        ahead = sum(p < mine for p in places)
        level = sum(p == mine for p in places)
        covered = [n - 1 - k for k in range(ahead, ahead + level)]
        points.append(sum(covered) / level)
    return points


def versus(mine: int, theirs: int) -> float:
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


@dataclass
class Line:
    """A player's line worked out here: points, the two tie-breaks as ``Entry`` stores them,
    and the place."""

    player: int
    points: float = 0.0
    tiebreak: float = 0.0
    second_tiebreak: float = 0.0
    rank: int = 0
    byes: int = 0
    firsts: int = 0


def _points(players: Iterable[int], results: Sequence[Played], bye: float) -> dict[int, Line]:
    lines = {p: Line(p) for p in players}
    for r in results:
        if r.bye:
            if bye and r.seats[0] in lines:
                lines[r.seats[0]].points += bye
                lines[r.seats[0]].byes += 1
            continue
        for seat, (player, earned) in enumerate(zip(r.seats, table_points(r.places), strict=True)):
            if player in lines:
                lines[player].points += earned
                lines[player].firsts += seat == 0
    return lines


def _head_to_head(player: int, among: set[int], results: Sequence[Played]) -> float:
    total = 0.0
    for r in games_of(results):
        if player not in r.seats:
            continue
        mine = r.places[r.seats.index(player)]
        for other, theirs in zip(r.seats, r.places, strict=True):
            if other != player and other in among:
                total += versus(mine, theirs)
    return total


def _places(lines: dict[int, Line], key: Callable[[Line], tuple[float, ...]]) -> None:
    """Ranks 1, 1, 3: equal keys share the place."""
    order = sorted(lines.values(), key=key)
    for index, line in enumerate(order):
        same = index and key(order[index - 1]) == key(line)
        line.rank = order[index - 1].rank if same else index + 1


def _tied(lines: dict[int, Line], key: Callable[[Line], tuple[float, ...]]) -> dict[int, set[int]]:
    groups: dict[tuple[float, ...], set[int]] = defaultdict(set)
    for line in lines.values():
        groups[key(line)].add(line.player)
    return {p: group for group in groups.values() for p in group}


def swiss_lines(players: Iterable[int], results: Sequence[Played]) -> dict[int, Line]:
    """A win 1, a draw 0.5, a bye 1; Buchholz: the final points of every opponent, once a game;
    Sonneborn-Berger: those of every opponent beaten, half those of every one drawn."""
    lines = _points(players, results, bye=1.0)
    for r in games_of(results):
        (a, b), (pa, pb) = r.seats, r.places
        lines[a].tiebreak += lines[b].points
        lines[b].tiebreak += lines[a].points
        lines[a].second_tiebreak += versus(pa, pb) * lines[b].points
        lines[b].second_tiebreak += versus(pb, pa) * lines[a].points
    _places(lines, lambda ln: (-ln.points, -ln.tiebreak, -ln.second_tiebreak))
    return lines


def multiplayer_lines(
    players: Iterable[int], results: Sequence[Played], table_size: int
) -> dict[int, Line]:
    """n - 1 .. 0 by place, a bye the middle place's points; then the sum of places (1 + the
    players strictly ahead; lower is better), then head-to-head among those still level."""
    lines = _points(players, results, bye=(table_size - 1) / 2)
    for r in games_of(results):
        for player, mine in zip(r.seats, r.places, strict=True):
            lines[player].tiebreak += 1 + sum(p < mine for p in r.places)
    tied = _tied(lines, lambda ln: (ln.points, ln.tiebreak))
    for line in lines.values():
        line.second_tiebreak = _head_to_head(line.player, tied[line.player], results)
    _places(lines, lambda ln: (-ln.points, ln.tiebreak, -ln.second_tiebreak))
    return lines


def round_robin_lines(players: Iterable[int], results: Sequence[Played]) -> dict[int, Line]:
    """One group: a win 1, a draw 0.5, a rest nothing; head-to-head among those level on
    points, then Sonneborn-Berger."""
    lines = _points(players, results, bye=0.0)
    tied = _tied(lines, lambda ln: (ln.points,))
    for line in lines.values():
        line.tiebreak = _head_to_head(line.player, tied[line.player], results)
    for r in games_of(results):
        (a, b), (pa, pb) = r.seats, r.places
        if a in lines and b in lines:
            lines[a].second_tiebreak += versus(pa, pb) * lines[b].points
            lines[b].second_tiebreak += versus(pb, pa) * lines[a].points
    _places(lines, lambda ln: (-ln.points, -ln.tiebreak, -ln.second_tiebreak))
    return lines


def groups_played(results: Sequence[Played]) -> list[set[int]]:
    """The round-robin groups, as who played whom: the connected parts of the games' graph."""
    part: dict[int, set[int]] = {}
    for r in results:
        merged = set(r.seats).union(*(part.get(p, set()) for p in r.seats))
        for player in merged:
            part[player] = merged
    unique = {id(group): group for group in part.values()}
    return sorted(unique.values(), key=min)


def assert_stored(tournament: Tournament, lines: dict[int, Line], *, byes: bool = True) -> None:
    """Every entry's stored points, tie-breaks and place are the ones worked out here."""
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=tournament)}
    for player, line in lines.items():
        entry = entries[player]
        stored = (entry.points, entry.tiebreak, entry.second_tiebreak, entry.rank)
        expected = (line.points, line.tiebreak, line.second_tiebreak, line.rank)
        assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(stored[:3], expected[:3]))
        assert stored[3] == expected[3], (player, stored, expected)
        assert entry.firsts == line.firsts, (player, entry.firsts, line.firsts)
        if byes:
            assert entry.byes == line.byes, (player, entry.byes, line.byes)


def winner_expected(
    lines: dict[int, Line], seeds: dict[int, int], withdrawn: set[int], division: dict[int, int]
) -> int:
    """The best place of the best division among those still in; level places (one in each
    group) go to more points, then the first tie-break, then the better seed."""
    candidates = [ln for p, ln in lines.items() if p not in withdrawn]
    best = min(
        candidates,
        key=lambda ln: (division.get(ln.player) or 1, ln.rank, -ln.points, -ln.tiebreak),
    )
    level = [
        ln
        for ln in candidates
        if (division.get(ln.player) or 1, ln.rank, -ln.points, -ln.tiebreak)
        == (division.get(best.player) or 1, best.rank, -best.points, -best.tiebreak)
    ]
    return min(level, key=lambda ln: seeds[ln.player]).player


# -- pairings' rules over a stored tournament --------------------------------------------


def perfect_matchings(players: list[int]) -> Iterator[list[frozenset[int]]]:
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for partner in rest:
        for pairs in perfect_matchings([p for p in rest if p != partner]):
            yield [frozenset((head, partner)), *pairs]


def swiss_round_options(
    players: Sequence[int],
) -> Iterator[tuple[list[frozenset[int]], int | None]]:
    """Every way to pair the round: (its pairs, who has the bye)."""
    ordered = sorted(players)
    if len(ordered) % 2:
        for bye in ordered:
            for pairs in perfect_matchings([p for p in ordered if p != bye]):
                yield pairs, bye
    else:
        for pairs in perfect_matchings(ordered):
            yield pairs, None


def assert_swiss_rules(results: Sequence[Played], active_by_round: dict[int, set[int]]) -> None:
    """Each round: no pair played again while some pairing of that round's players had fewer
    repeats, and no second bye while a pairing with as few repeats gave it to one who had none
    (every player at most one bye, then)."""
    rounds = sorted({r.round for r in results})
    for number in rounds:
        before = [r for r in results if r.round < number]
        met = Counter(frozenset(r.seats) for r in games_of(before))
        had = Counter(r.seats[0] for r in before if r.bye)
        this = [r for r in results if r.round == number]
        pairs = [frozenset(r.seats) for r in this if not r.bye]
        bye = next((r.seats[0] for r in this if r.bye), None)
        players = active_by_round[number]
        assert {p for r in this for p in r.seats} == players

        options = list(swiss_round_options(sorted(players)))
        least = min(_repeats(o, met) for o, _bye in options)
        chosen = _repeats(pairs, met)
        assert chosen == least, f"round {number}: {chosen} repeats, {least} could"
        if bye is not None:
            fewest = min(had[b] for o, b in options if _repeats(o, met) == least and b is not None)
            assert had[bye] == fewest, f"round {number}: a second bye to {bye}"


def _repeats(tables: Iterable[Iterable[int]], met: Counter[frozenset[int]]) -> int:
    """Games already played together, over every pair at the same table."""
    return sum(met[frozenset(pair)] for table in tables for pair in combinations(table, 2))


def seat_balance(results: Sequence[Played]) -> Counter[int]:
    """First seats less other seats, by player, over every two-player game."""
    balance: Counter[int] = Counter()
    for r in games_of(results):
        for seat, player in enumerate(r.seats):
            balance[player] += 1 if seat == 0 else -1
    return balance


def met_counts(results: Sequence[Played]) -> Counter[frozenset[int]]:
    return Counter(frozenset(pair) for r in games_of(results) for pair in combinations(r.seats, 2))


def partitions(players: Sequence[int], sizes: Sequence[int]) -> Iterator[list[frozenset[int]]]:
    """Every way to seat ``players`` at tables of these sizes (the tables unordered)."""
    if not players:
        yield []
        return
    head, rest = players[0], list(players[1:])
    for size in sorted(set(sizes)):
        others = list(sizes)
        others.remove(size)
        for partners in combinations(rest, size - 1):
            remaining = [p for p in rest if p not in partners]
            for tables in partitions(remaining, others):
                yield [frozenset((head, *partners)), *tables]


def assert_fewest_repeat_opponents(results: Sequence[Played]) -> None:
    """Each multiplayer round: over every pair at a table, the games they had played together
    before add up to the fewest that any seating of the same players at the same sizes has."""
    for number in sorted({r.round for r in results}):
        met = met_counts([r for r in results if r.round < number])
        tables = [r.seats for r in games_of(results) if r.round == number]
        seated = sorted(p for seats in tables for p in seats)
        sizes = [len(t) for t in tables]
        least = min(_repeats(option, met) for option in partitions(seated, sizes))
        chosen = _repeats(tables, met)
        assert chosen == least, f"round {number}: {chosen} repeats, {least} could"


def assert_timeouts_lost(results: Sequence[Played]) -> int:
    """A player whose seat a bot took (too many timeouts, a window's end, a withdrawal) is
    ranked last at that table, below everyone who kept their seat. How many such seats."""
    count = 0
    for r in games_of(results):
        if r.table_id is None:
            continue
        taken = set(
            Seat.objects.filter(
                table_id=r.table_id, replaced_by_bot=True, user__isnull=False
            ).values_list("position", flat=True)
        )
        for position in taken:
            count += 1
            kept = [r.places[k] for k in range(len(r.seats)) if k not in taken]
            assert all(r.places[position] > place for place in kept), (r, taken)
    return count


def rounds_of(tournament: Tournament) -> list[Round]:
    return list(Round.objects.filter(tournament=tournament).order_by("season", "number"))
