"""A tournament running itself: its start (or its cancel when too few entered), each round's
pairings and tables, each game's result, a round's close, the next round or season, the end.

The pairings are the pure functions of ``tournaments.pairing``; this module feeds them the
stored results and stores what they return. Every change of a tournament runs in one
transaction with its row locked; the sweep takes the row with ``skip_locked``, so two workers
that sweep at once never open a round twice (the second skips what the first holds, then finds
it done). Tables are seated through ``games.services.tables.table_create_seated``; a game's end
comes back through games' events (``tournaments.jobs``) and, should that be lost, the sweep.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Block, User
from games.models import Rating, Table
from games.rules import get_rules
from games.services.bot_moves import seat_hand_to_bot, table_play_out
from games.services.tables import table_create_seated
from tournaments.models import Entry, Format, Pairing, PairingSeat, Round, Tournament
from tournaments.pairing import knockout, league, multiplayer, round_robin, standings, swiss
from tournaments.pairing.history import Bye, Game, PlayerHistory, build_histories, points_by_place
from tournaments.pairing.rounds import Round as PlannedRound
from tournaments.services import telling

logger = logging.getLogger(__name__)

# A round without a window may be ended by its creator once it has lasted as long as this many
# moves' time (a game whose clocks keep stopping: vacations, a stuck seat).
STALL_MOVES = 100
# A pair barred from games together (a block made after both entered) counts as having met
# this many times: the pairings avoid it while any other pairing exists.
BARRED_MET = 1000
BATCH = 50


def bye_points(tournament: Tournament) -> float:
    """A bye's points: a win in a Swiss; the middle place's points at a multiplayer table; a
    round robin's or a league's rest (an odd group) is no game and no points."""
    if tournament.format in (Format.SWISS, Format.SWISS_WINDOWS):
        return 1.0
    if tournament.format == Format.MULTIPLAYER:
        return (tournament.table_size - 1) / 2
    return 0.0


@dataclass(frozen=True)
class _Planned:
    """A pairing to store: its group (a round robin's group, a knockout's match), seats, game."""

    group: int
    seats: tuple[int, ...]
    game_number: int = 1


# -- start -------------------------------------------------------------------------------


def tournament_start(*, tournament: Tournament, now: dt.datetime) -> None:
    """Under the tournament's lock, at its start: seeds the players by rating and opens round
    one, or cancels it when fewer than its minimum entered."""
    entries = _active(list(tournament.entries.select_related("user")))
    if len(entries) < tournament.min_players:
        tournament.status = Tournament.Status.CANCELLED
        tournament.finished_at = now
        tournament.version += 1
        tournament.save(update_fields=["status", "finished_at", "version"])
        telling.tournament_cancelled(tournament=tournament, entries=entries)
        return
    ratings = dict(
        Rating.objects.filter(
            game=tournament.game, user__in=[e.user_id for e in entries]
        ).values_list("user_id", "ordinal")
    )
    entries.sort(key=lambda e: (-ratings.get(e.user_id, -1e9), e.joined_at, e.pk))
    for seed, entry in enumerate(entries, start=1):
        entry.seed = seed
    if tournament.format == Format.ROUND_ROBIN:
        groups = round_robin.groups_by_rating({e.user_id: -e.seed for e in entries})
        _place_in_groups(entries, [(0, group) for group in groups])
    elif tournament.format == Format.LEAGUE:
        start = league.league_start([e.user_id for e in entries])
        _place_in_league(entries, start)
    Entry.objects.bulk_update(entries, ["seed", "group", "division"])
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = now
    tournament.save(update_fields=["status", "started_at"])
    _round_open(tournament, season=1, number=1, now=now)


def _place_in_groups(entries: list[Entry], groups: Sequence[tuple[int, Sequence[int]]]) -> None:
    """Each entry's division and group (0, 1, ...) and its seed in it (1 the best)."""
    by_user = {e.user_id: e for e in entries}
    for index, (division, players) in enumerate(groups):
        for seed, player in enumerate(players, start=1):
            entry = by_user[player]
            entry.division, entry.group, entry.seed = division, index, seed


def _place_in_league(entries: list[Entry], table: league.League) -> None:
    groups = [
        (level, group)
        for level, division in enumerate(table.divisions, start=1)
        for group in division.groups
    ]
    for entry in entries:
        entry.division = 0  # waits for a season, unless dealt into one below
    _place_in_groups(entries, groups)


# -- rounds ------------------------------------------------------------------------------


def _active(entries: list[Entry]) -> list[Entry]:
    return [e for e in entries if e.withdrawn_at is None]


def _results(tournament: Tournament, season: int) -> list[PairingSeat]:
    """Every stored seat of the season's pairings, with its pairing and round (one query)."""
    return list(
        PairingSeat.objects.filter(
            pairing__round__tournament=tournament, pairing__round__season=season
        )
        .select_related("pairing__round", "entry")
        .order_by("pairing__round__number", "pairing_id", "position")
    )


def _histories(
    tournament: Tournament, entries: list[Entry], seats: list[PairingSeat]
) -> dict[int, PlayerHistory]:
    """The pure core's histories from the stored results: the players by their account's id,
    seeded by ``Entry.seed``; the games that ended, and the byes."""
    by_pairing: dict[int, list[PairingSeat]] = defaultdict(list)
    for seat in seats:
        by_pairing[seat.pairing_id].append(seat)
    games: list[Game] = []
    byes: list[Bye] = []
    for pairing_seats in by_pairing.values():
        pairing = pairing_seats[0].pairing
        if not pairing.done:
            continue
        number = pairing.round.number
        if pairing.is_bye:
            if bye_points(tournament):
                byes.append(Bye(number, pairing_seats[0].entry.user_id))
            continue
        ordered = sorted(pairing_seats, key=lambda s: s.position)
        games.append(
            Game(
                number,
                tuple(s.entry.user_id for s in ordered),
                tuple(s.place or 1 for s in ordered),
            )
        )
    ratings = {e.user_id: -float(e.seed) for e in entries}
    return build_histories(ratings, games, byes, bye_points=bye_points(tournament))


def _round_count(tournament: Tournament, entries: list[Entry], season: int) -> int | None:
    """How many rounds the tournament (a league: the season) has; None: a knockout, which
    ends with its final."""
    if tournament.format in (Format.ROUND_ROBIN, Format.LEAGUE):
        longest = max(
            (len(round_robin.berger_schedule(g)) for g in _groups(tournament, entries).values()),
            default=0,
        )
        if tournament.format == Format.ROUND_ROBIN and tournament.rounds:
            return min(tournament.rounds, longest)
        return longest
    if tournament.format == Format.KNOCKOUT:
        return None
    return tournament.rounds


def _groups(tournament: Tournament, entries: list[Entry]) -> dict[tuple[int, int], tuple[int, ...]]:
    """Each round-robin group's players (withdrawn ones too: their games are forfeits), best
    seed first, by (division, group); a league's players waiting for a season are in none."""
    league_ = tournament.format == Format.LEAGUE
    groups: dict[tuple[int, int], list[Entry]] = defaultdict(list)
    for entry in entries:
        if not (league_ and not entry.division):
            groups[(entry.division, entry.group)].append(entry)
    return {
        key: tuple(e.user_id for e in sorted(members, key=lambda e: e.seed))
        for key, members in sorted(groups.items())
    }


def _plan(
    tournament: Tournament,
    entries: list[Entry],
    seats: list[PairingSeat],
    season: int,
    number: int,
) -> tuple[list[_Planned], list[int]]:
    """The round's pairings and byes (account ids), from the format's pure function."""
    active = _active(entries)
    histories = _with_bars(_histories(tournament, entries, seats), _barred(active))
    fmt = tournament.format
    if fmt in (Format.SWISS, Format.SWISS_WINDOWS):
        planned = swiss.pair_swiss([histories[e.user_id] for e in active])
        return _from_round(planned, group=0), list(planned.byes)
    if fmt == Format.MULTIPLAYER:
        rules = get_rules(tournament.game)
        planned = multiplayer.pair_tables(
            [histories[e.user_id] for e in active],
            preferred=tournament.table_size,
            minimum=max(2, min(rules.min_players, tournament.table_size)),
            maximum=min(rules.max_players, max(tournament.table_size, 2)),
        )
        return _from_round(planned, group=0), list(planned.byes)
    if fmt in (Format.ROUND_ROBIN, Format.LEAGUE):
        pairings: list[_Planned] = []
        byes: list[int] = []
        for index, players in enumerate(_groups(tournament, entries).values()):
            schedule = round_robin.berger_schedule(players)
            if number <= len(schedule):
                pairings += _from_round(schedule[number - 1], group=index)
                byes += list(schedule[number - 1].byes)
        return pairings, byes
    return _knockout_plan(tournament, entries, seats, number)


def _barred(entries: list[Entry]) -> set[frozenset[int]]:
    """The pairs of these players of whom one blocked the other from games (one query)."""
    players = [e.user_id for e in entries]
    rows = Block.objects.filter(
        blocker_id__in=players, blocked_id__in=players, no_games=True
    ).values_list("blocker_id", "blocked_id")
    return {frozenset(row) for row in rows}


def _with_bars(
    histories: dict[int, PlayerHistory], bars: set[frozenset[int]]
) -> dict[int, PlayerHistory]:
    """The histories with each barred pair counted as met ``BARRED_MET`` times more."""
    if not bars:
        return histories
    shunned: dict[int, set[int]] = defaultdict(set)
    for pair in bars:
        one, other = tuple(pair)
        shunned[one].add(other)
        shunned[other].add(one)
    changed = dict(histories)
    for player, others in shunned.items():
        met = dict(histories[player].met)
        for other in others:
            met[other] = met.get(other, 0) + BARRED_MET
        changed[player] = replace(histories[player], met=tuple(sorted(met.items())))
    return changed


def _from_round(planned: PlannedRound, *, group: int) -> list[_Planned]:
    return [_Planned(group, table.seats) for table in planned.tables]


def _matches(seats: list[PairingSeat], number: int) -> list[knockout.Match]:
    """A knockout round's matches, in bracket order, from its pairings' first games."""
    firsts: dict[int, list[PairingSeat]] = defaultdict(list)
    for seat in seats:
        if seat.pairing.round.number == number and seat.pairing.game_number == 1:
            firsts[seat.pairing.group].append(seat)
    matches = []
    for _group, match_seats in sorted(firsts.items()):
        players = [s.entry.user_id for s in sorted(match_seats, key=lambda s: s.position)]
        matches.append(knockout.Match(players[0], players[1] if len(players) > 1 else None))
    return matches


def _match_games(seats: list[PairingSeat], number: int, group: int) -> list[Game]:
    by_pairing: dict[int, list[PairingSeat]] = defaultdict(list)
    for seat in seats:
        pairing = seat.pairing
        same = pairing.round.number == number and pairing.group == group
        if same and pairing.done and not pairing.is_bye:
            by_pairing[pairing.game_number].append(seat)
    return [
        Game(
            number,
            tuple(s.entry.user_id for s in sorted(pair, key=lambda s: s.position)),
            tuple(s.place or 1 for s in sorted(pair, key=lambda s: s.position)),
        )
        for _game, pair in sorted(by_pairing.items())
    ]


def _match_winners(
    tournament: Tournament, seats: list[PairingSeat], number: int
) -> list[int | None]:
    return [
        knockout.match_winner(match, _match_games(seats, number, group), tournament.match_games)
        for group, match in enumerate(_matches(seats, number))
    ]


def _knockout_plan(
    tournament: Tournament, entries: list[Entry], seats: list[PairingSeat], number: int
) -> tuple[list[_Planned], list[int]]:
    if number == 1:
        seeds = [e.user_id for e in sorted(_active(entries), key=lambda e: e.seed)]
        matches = knockout.first_round(seeds)
    else:
        winners = [w for w in _match_winners(tournament, seats, number - 1) if w is not None]
        seed = {e.user_id: e.seed for e in entries}
        # The better seed on top (it plays first in game one), whoever won the upper match.
        matches = tuple(
            knockout.Match(*sorted((m.top, m.bottom), key=lambda p: seed[p]))
            if m.bottom is not None
            else m
            for m in knockout.next_round(_matches(seats, number - 1), winners)
        )
    pairings: list[_Planned] = []
    byes: list[int] = []
    for group, match in enumerate(matches):
        if match.bottom is None:
            byes.append(match.top)
            pairings.append(_Planned(group, (match.top,)))
        else:
            pairings.append(_Planned(group, knockout.game_seats(match, 0).seats))
    return pairings, byes


def _round_open(tournament: Tournament, *, season: int, number: int, now: dt.datetime) -> Round:
    """Stores the round's pairings and byes and starts its tables (a window's games wait for
    their players to be ready, or for their latest start)."""
    entries = list(tournament.entries.select_related("user"))
    seats = _results(tournament, season)
    pairings, byes = _plan(tournament, entries, seats, season, number)
    windowed = tournament.format == Format.SWISS_WINDOWS
    window = tournament.round_window if windowed else None
    within = tournament.start_within if windowed else None
    stall = dt.timedelta(seconds=tournament.seconds_per_move * STALL_MOVES)
    stored = Round.objects.create(
        tournament=tournament,
        season=season,
        number=number,
        opens_at=now,
        closes_at=now + (window or stall),
    )
    by_user = {e.user_id: e for e in entries}
    knockout_byes = tournament.format == Format.KNOCKOUT
    for planned in pairings:
        is_bye = len(planned.seats) == 1
        pairing = Pairing.objects.create(
            round=stored,
            group=planned.group,
            game_number=planned.game_number,
            is_bye=is_bye,
            done=is_bye,
            starts_by=now + within if within is not None and not is_bye else None,
        )
        _seat(pairing, planned.seats, by_user, bye=is_bye, points=bye_points(tournament))
        if not is_bye:
            _pairing_begin(tournament, pairing, now)
    if not knockout_byes:
        for player in byes:
            pairing = Pairing.objects.create(round=stored, is_bye=True, done=True)
            _seat(pairing, (player,), by_user, bye=True, points=bye_points(tournament))
    # The standings again: a knockout ranks by how far each player got, the new round included.
    standings_store(tournament=tournament, season=season)
    tournament.version += 1
    tournament.save(update_fields=["version"])
    telling.round_opened(tournament=tournament, round=stored)
    _round_close_if_done(tournament, stored, now)
    return stored


def _seat(
    pairing: Pairing,
    players: Sequence[int],
    by_user: dict[int, Entry],
    *,
    bye: bool,
    points: float,
) -> None:
    PairingSeat.objects.bulk_create(
        [
            PairingSeat(
                pairing=pairing,
                entry=by_user[player],
                position=position,
                place=1 if bye else None,
                points=points if bye else None,
            )
            for position, player in enumerate(players)
        ]
    )


def _pairing_begin(tournament: Tournament, pairing: Pairing, now: dt.datetime) -> None:
    """A pairing's game: a withdrawn player's is lost at once, without a table; in a window,
    it waits; otherwise its table starts now."""
    seats = list(pairing.seats.select_related("entry__user"))
    gone = [s for s in seats if s.entry.withdrawn_at is not None]
    if len(seats) == 2 and not gone and _barred([s.entry for s in seats]):
        # One blocked the other from games (after both entered) and no other pairing was
        # left: no table; a draw, or in a knockout the better seed goes on.
        if tournament.format == Format.KNOCKOUT:
            _forfeit(pairing, seats, {max(seats, key=lambda s: s.entry.seed).entry_id})
            _knockout_next_game(tournament, pairing, now)
        else:
            _forfeit(pairing, seats, {s.entry_id for s in seats})
        return
    if gone:
        losers = {s.entry_id for s in gone}
        if tournament.format == Format.KNOCKOUT and len(gone) == len(seats):
            # A match has a winner: between players who both withdrew, the better seed takes
            # the game (and forfeits the next round's); all losing would draw game after game.
            losers.discard(min(seats, key=lambda s: s.entry.seed).entry_id)
        _forfeit(pairing, seats, losers)
        if tournament.format == Format.KNOCKOUT:
            _knockout_next_game(tournament, pairing, now)
        return
    waiting = any(s.ready_at is None for s in seats)
    if pairing.starts_by is not None and waiting and pairing.starts_by > now:
        return
    _table_start(tournament, pairing, seats)


def _table_start(tournament: Tournament, pairing: Pairing, seats: list[PairingSeat]) -> None:
    users: list[User] = [s.entry.user for s in sorted(seats, key=lambda s: s.position)]
    pairing.table = table_create_seated(
        users=users,
        game=tournament.game,
        seconds_per_move=tournament.seconds_per_move,
        options=tournament.options,
        rated=tournament.rated,
    )
    pairing.save(update_fields=["table"])


def _forfeit(pairing: Pairing, seats: list[PairingSeat], losers: set[int]) -> None:
    """A game not played: the withdrawn seats share the last place, the others the first."""
    places = [2 if s.entry_id in losers else 1 for s in seats]
    _store_places(pairing, seats, places)


def _store_places(pairing: Pairing, seats: list[PairingSeat], places: list[int]) -> None:
    points = points_by_place(places)
    for seat, place, earned in zip(seats, places, points, strict=True):
        seat.place = 1 + sum(other < place for other in places)
        seat.points = earned
    PairingSeat.objects.bulk_update(seats, ["place", "points"])
    pairing.done = True
    pairing.save(update_fields=["done"])


# -- results -----------------------------------------------------------------------------


def _record(tournament: Tournament, pairing: Pairing, now: dt.datetime) -> bool:
    """Stores the places of a pairing whose game ended; whether it did."""
    table = pairing.table
    if (
        pairing.done
        or table is None
        or table.status
        not in (
            Table.Status.FINISHED,
            Table.Status.ABORTED,
        )
    ):
        return False
    seats = list(pairing.seats.select_related("entry"))
    ranks = (table.outcome or {}).get("ranks") if table.status == Table.Status.FINISHED else None
    if ranks is None:  # no result (aborted): nobody wins
        _store_places(pairing, seats, [2 for _seat in seats])
    else:
        _store_places(pairing, seats, [int(ranks[s.position]) + 1 for s in seats])
    if tournament.format == Format.KNOCKOUT:
        _knockout_next_game(tournament, pairing, now)
    return True


def _knockout_next_game(tournament: Tournament, pairing: Pairing, now: dt.datetime) -> None:
    """A knockout match goes on with its next game while nobody has won it."""
    round_ = pairing.round
    seats = _results(tournament, round_.season)
    match = _matches(seats, round_.number)[pairing.group]
    games = _match_games(seats, round_.number, pairing.group)
    if knockout.match_winner(match, games, tournament.match_games) is not None:
        return
    planned = knockout.game_seats(match, len(games))
    following = Pairing.objects.create(
        round=round_, group=pairing.group, game_number=len(games) + 1
    )
    by_user = {e.user_id: e for e in tournament.entries.all()}
    _seat(following, planned.seats, by_user, bye=False, points=0)
    _pairing_begin(tournament, following, now)


def game_ended(*, table_id: int, now: dt.datetime | None = None) -> bool:
    """Games' ``GameEnded`` for a tournament's table: its result counts, the standings move,
    and the round closes when it was the last game. Whether it was a tournament's game."""
    now = now or timezone.now()
    tournament_id = (
        Pairing.objects.filter(table_id=table_id).values_list("round__tournament_id", flat=True)
    ).first()
    if tournament_id is None:
        return False
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament_id)
        pairing = Pairing.objects.select_related("round", "table").get(table_id=table_id)
        if _record(tournament, pairing, now):
            _after_results(tournament, pairing.round, now)
    return True


def _after_results(tournament: Tournament, round_: Round, now: dt.datetime) -> None:
    standings_store(tournament=tournament, season=round_.season)
    tournament.version += 1
    tournament.save(update_fields=["version"])
    _round_close_if_done(tournament, round_, now)


def _round_close_if_done(tournament: Tournament, round_: Round, now: dt.datetime) -> None:
    if round_.closed_at is None and not round_.pairings.filter(done=False).exists():
        _round_close(tournament, round_, now)


def _round_close(tournament: Tournament, round_: Round, now: dt.datetime) -> None:
    """Closes the round; opens the next one, the next season, or ends the tournament."""
    round_.closed_at = now
    round_.save(update_fields=["closed_at"])
    standings_store(tournament=tournament, season=round_.season)
    entries = list(tournament.entries.all())
    last = _round_count(tournament, entries, round_.season)
    if tournament.format == Format.KNOCKOUT:
        seats = _results(tournament, round_.season)
        if len(_matches(seats, round_.number)) > 1:
            _round_open(tournament, season=round_.season, number=round_.number + 1, now=now)
        else:
            winner = _match_winners(tournament, seats, round_.number)[0]
            _finish(tournament, winner, now)
        return
    if len(_active(entries)) >= 2 and (last is None or round_.number < last):
        _round_open(tournament, season=round_.season, number=round_.number + 1, now=now)
        return
    if tournament.format == Format.LEAGUE:
        seasons = tournament.rounds
        if len(_active(entries)) >= 2 and (seasons is None or round_.season < seasons):
            _season_next(tournament, entries, round_.season, now)
            return
    ranked = sorted(
        (e for e in entries if e.rank is not None and e.withdrawn_at is None),
        key=lambda e: (e.division or 1, e.rank or 0, -e.points, -e.tiebreak, e.seed),
    )
    _finish(tournament, ranked[0].user_id if ranked else None, now)


def _season_next(
    tournament: Tournament, entries: list[Entry], season: int, now: dt.datetime
) -> None:
    """A league's next season: the top two of each group up a division, the bottom two down,
    those who left out, those who joined since into the lowest division."""
    grouped: dict[tuple[int, int], list[Entry]] = defaultdict(list)
    for entry in entries:
        if entry.division:
            grouped[(entry.division, entry.group)].append(entry)
    levels = max((division for division, _group in grouped), default=0)
    divisions = []
    results: dict[tuple[int, ...], list[int]] = {}
    for level in range(1, levels + 1):
        groups = []
        for (division, _group), members in sorted(grouped.items()):
            if division != level:
                continue
            players = tuple(e.user_id for e in sorted(members, key=lambda e: e.seed))
            groups.append(players)
            ranked = sorted(members, key=lambda e: (e.rank or 0, e.seed))
            results[players] = [e.user_id for e in ranked]
        divisions.append(league.Division(tuple(groups)))
    waiting = [e.user_id for e in sorted(entries, key=lambda e: e.joined_at) if not e.division]
    following = league.league_next_season(
        league.League(tuple(divisions)),
        results,
        leaving=[e.user_id for e in entries if e.withdrawn_at is not None],
        joining=[p for p in waiting if p not in {e.user_id for e in entries if e.withdrawn_at}],
    )
    _place_in_league(entries, following)
    for entry in entries:
        entry.points = entry.tiebreak = entry.second_tiebreak = 0
        entry.rank = None
    Entry.objects.bulk_update(
        entries, ["seed", "group", "division", "points", "tiebreak", "second_tiebreak", "rank"]
    )
    _round_open(tournament, season=season + 1, number=1, now=now)


def _finish(tournament: Tournament, winner: int | None, now: dt.datetime) -> None:
    tournament.status = Tournament.Status.FINISHED
    tournament.finished_at = now
    tournament.winner_id = winner
    tournament.version += 1
    tournament.save(update_fields=["status", "finished_at", "winner", "version"])
    telling.tournament_ended(tournament=tournament)


def standings_store(*, tournament: Tournament, season: int) -> None:
    """Every entry's points, tie-breaks and place from the results so far (the format's
    ``tournaments.pairing.standings``; a round robin and a league rank each group apart)."""
    entries = list(tournament.entries.all())
    seats = _results(tournament, season)
    histories = _histories(tournament, entries, seats)
    by_user = {e.user_id: e for e in entries}
    fmt = tournament.format
    if fmt in (Format.ROUND_ROBIN, Format.LEAGUE):
        table: list[standings.Standing] = []
        for players in _groups(tournament, entries).values():
            table += standings.round_robin_standings({p: histories[p] for p in players})
    elif fmt == Format.MULTIPLAYER:
        table = list(standings.multiplayer_standings(histories))
    elif fmt == Format.KNOCKOUT:
        table = list(_knockout_standings(tournament, histories, seats))
    else:
        table = list(standings.swiss_standings(histories))
    fields = ["points", "tiebreak", "second_tiebreak", "rank", "byes", "firsts"]
    changed: list[Entry] = []
    for line in table:
        entry = by_user[line.player]
        history = histories[line.player]
        breaks = (*line.tiebreaks, 0.0, 0.0)
        values = (line.points, breaks[0], breaks[1], line.rank, history.byes, history.firsts)
        if values != tuple(getattr(entry, field) for field in fields):
            for field, value in zip(fields, values, strict=True):
                setattr(entry, field, value)
            changed.append(entry)
    # Only the lines that moved: a game's end changes a few of a large field's.
    if changed:
        Entry.objects.bulk_update(changed, fields)


def _knockout_standings(
    tournament: Tournament, histories: dict[int, PlayerHistory], seats: list[PairingSeat]
) -> list[standings.Standing]:
    """A bracket's order: the further a player went, the better (the winner first), then the
    points of their games."""
    reached: dict[int, int] = defaultdict(int)
    won_final: set[int] = set()
    last_round = max((s.pairing.round.number for s in seats), default=0)
    for seat in seats:
        number = seat.pairing.round.number
        reached[seat.entry.user_id] = max(reached[seat.entry.user_id], number)
    if last_round and len(_matches(seats, last_round)) == 1:
        winner = _match_winners(tournament, seats, last_round)[0]
        if winner is not None:
            won_final.add(winner)
    key = {p: (-(reached[p] + (p in won_final)), -histories[p].points) for p in histories}
    order = sorted(histories, key=lambda p: (key[p], p))
    table: list[standings.Standing] = []
    for index, player in enumerate(order):
        same = table and key[order[index - 1]] == key[player]
        rank = table[-1].rank if same else index + 1
        table.append(
            standings.Standing(
                player, rank, histories[player].points, (float(reached[player]), 0.0)
            )
        )
    return table


# -- withdrawals and readiness -----------------------------------------------------------


def entry_withdrawn(*, tournament: Tournament, entry: Entry, now: dt.datetime) -> None:
    """Under the tournament's lock, after ``entry`` withdrew: its running games go on with a
    bot in its seat (a loss for it), its games not started are lost at once."""
    tournament.version += 1  # its pages mark the player withdrawn
    tournament.save(update_fields=["version"])
    pending = Pairing.objects.filter(
        round__tournament=tournament, done=False, seats__entry=entry
    ).select_related("round", "table")
    for pairing in pending:
        if pairing.table_id is not None:
            seat_hand_to_bot(table_id=pairing.table_id, user_id=entry.user_id)
            continue
        seats = list(pairing.seats.select_related("entry"))
        _forfeit(pairing, seats, {entry.pk})
        if tournament.format == Format.KNOCKOUT:
            _knockout_next_game(tournament, pairing, now)
        _after_results(tournament, pairing.round, now)


def pairing_ready(
    *, tournament: Tournament, pairing: Pairing, entry: Entry, now: dt.datetime
) -> bool:
    """Under the tournament's lock: ``entry`` is ready for its window game; the table starts
    once everyone at it is. Whether it started."""
    seat = pairing.seats.filter(entry=entry).first()
    if seat is None:
        return False
    if seat.ready_at is None:
        seat.ready_at = now
        seat.save(update_fields=["ready_at"])
    seats = list(pairing.seats.select_related("entry__user"))
    tournament.version += 1  # the others' pages show who is ready
    tournament.save(update_fields=["version"])
    if pairing.table_id is None and all(s.ready_at is not None for s in seats):
        _table_start(tournament, pairing, seats)
        return True
    return False


def round_end(*, tournament: Tournament, round_: Round, now: dt.datetime) -> None:
    """Under the tournament's lock: the round's time is up (its window's end, or its creator
    ends it stalled): a game not started starts and, like every game still running, ends as a
    timeout of the seats to move; then the round closes."""
    for pairing in round_.pairings.filter(done=False).select_related("table"):
        if pairing.table_id is None:
            seats = list(pairing.seats.select_related("entry__user"))
            if any(s.entry.withdrawn_at is not None for s in seats):
                _pairing_begin(tournament, pairing, now)
                continue
            _table_start(tournament, pairing, seats)
        assert pairing.table_id is not None
        table_play_out(table_id=pairing.table_id)
        pairing.table = Table.objects.get(pk=pairing.table_id)
        _record(tournament, pairing, now)
    if round_.closed_at is None:
        _after_results(tournament, round_, now)


# -- the sweep ---------------------------------------------------------------------------


def _locked_skipping(tournament_id: int, condition: Q) -> Tournament | None:
    """The tournament, locked, if it still meets ``condition`` and no other worker holds it."""
    return (
        Tournament.objects.select_for_update(skip_locked=True)
        .filter(condition, pk=tournament_id)
        .first()
    )


def sweep_tournaments(now: dt.datetime | None = None) -> int:
    """Beat's sweep (the embedded scheduler's on the default): starts the tournaments due,
    the window games whose latest start came, ends the rounds whose window passed, and counts
    a game's end whose event was lost. Returns how many things it did."""
    now = now or timezone.now()
    done = 0
    running = Tournament.Status.RUNNING
    due = Tournament.objects.filter(status=Tournament.Status.SIGNUP, starts_at__lte=now)
    for tournament_id in due.values_list("pk", flat=True)[:BATCH]:
        with transaction.atomic():
            condition = Q(status=Tournament.Status.SIGNUP, starts_at__lte=now)
            tournament = _locked_skipping(tournament_id, condition)
            if tournament is not None:
                tournament_start(tournament=tournament, now=now)
                done += 1
    starting = Pairing.objects.filter(
        table__isnull=True, done=False, is_bye=False, starts_by__lte=now
    ).values_list("round__tournament_id", flat=True)
    for tournament_id in sorted(set(starting[:BATCH])):
        with transaction.atomic():
            tournament = _locked_skipping(tournament_id, Q(status=running))
            if tournament is None:
                continue
            for pairing in Pairing.objects.filter(
                round__tournament=tournament,
                table__isnull=True,
                done=False,
                is_bye=False,
                starts_by__lte=now,
            ):
                _pairing_begin(tournament, pairing, now)
                done += 1
            tournament.version += 1
            tournament.save(update_fields=["version"])
    closing = Round.objects.filter(
        closed_at__isnull=True,
        closes_at__lte=now,
        tournament__status=running,
        tournament__format=Format.SWISS_WINDOWS,
    ).values_list("pk", "tournament_id")
    for round_id, tournament_id in list(closing[:BATCH]):
        with transaction.atomic():
            tournament = _locked_skipping(tournament_id, Q(status=running))
            round_ = Round.objects.filter(pk=round_id, closed_at__isnull=True).first()
            if tournament is not None and round_ is not None:
                round_end(tournament=tournament, round_=round_, now=now)
                done += 1
    lost = Pairing.objects.filter(
        done=False,
        table__status__in=[Table.Status.FINISHED, Table.Status.ABORTED],
        round__tournament__status=running,
    ).values_list("table_id", flat=True)
    for table_id in list(lost[:BATCH]):
        done += game_ended(table_id=table_id, now=now)
    return done
