"""A running or finished tournament as its page shows it: the standings, each round's tables and
byes (the latest round first), and what the viewer may do there (say they are ready for a window
game, end a stalled round). Four queries however many players, rounds and tables: the entries
with their accounts, the rounds, the pairings with their tables' status, the pairings' seats."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import F
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.models import Table
from tournaments.models import Entry, Format, Pairing, PairingSeat, Round, Tournament

# The two tie-breaks each format orders by after the points (tournaments/pairing/standings.py).
TIEBREAKS: dict[str, tuple[Promise, Promise]] = {
    Format.SWISS: (gettext_lazy("Buchholz"), gettext_lazy("Sonneborn-Berger")),
    Format.SWISS_WINDOWS: (gettext_lazy("Buchholz"), gettext_lazy("Sonneborn-Berger")),
    Format.MULTIPLAYER: (gettext_lazy("Sum of places"), gettext_lazy("Head-to-head")),
    Format.ROUND_ROBIN: (gettext_lazy("Head-to-head"), gettext_lazy("Sonneborn-Berger")),
    Format.LEAGUE: (gettext_lazy("Head-to-head"), gettext_lazy("Sonneborn-Berger")),
}


@dataclass(frozen=True)
class Line:
    """A player's line of the standings; ``reached``: in a knockout, how far they went."""

    entry: Entry
    reached: str = ""


@dataclass(frozen=True)
class Group:
    """One table of the standings: a round robin's group, a league's division (or its group);
    ``title`` is empty when the tournament has a single table."""

    title: str
    lines: list[Line]


@dataclass(frozen=True)
class Game:
    """One table of a round (a knockout match's game): its seats in seat order, each with its
    entry (and so its player), and the viewer's seat at it if any."""

    pairing: Pairing
    seats: list[PairingSeat]
    mine: PairingSeat | None
    # A window game that has not started: it waits for its players to be ready.
    waiting: bool
    # The viewer may say they are ready for it.
    may_ready: bool

    @property
    def table(self) -> Table | None:
        return self.pairing.table

    @property
    def finished(self) -> bool:
        return self.pairing.table is not None and self.pairing.table.status == Table.Status.FINISHED


@dataclass(frozen=True)
class Match:
    """A knockout match: its games, and each player's points over them (in seat order of the
    first game)."""

    number: int
    games: list[Game]
    score: list[tuple[Entry, float]]


@dataclass(frozen=True)
class RoundView:
    round: Round
    title: str
    games: list[Game] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    byes: list[Entry] = field(default_factory=list)

    @property
    def is_open(self) -> bool:
        return self.round.closed_at is None


@dataclass(frozen=True)
class Progress:
    tiebreaks: tuple[Promise, Promise] | None
    is_knockout: bool
    groups: list[Group]
    # A league's players in no division this season (joined since it started, or withdrawn).
    resting: list[Entry]
    rounds: list[RoundView]
    entries: list[Entry]
    mine: Entry | None
    winner: Entry | None
    current: Round | None
    # The viewer created it and may end the current round now; else from when they may.
    may_end_round: bool
    end_round_from: dt.datetime | None


def _entries(tournament: Tournament) -> list[Entry]:
    """Every entry, each group's best place first (places not yet given last)."""
    return list(
        tournament.entries.select_related("user").order_by(
            "division",
            "group",
            F("rank").asc(nulls_last=True),
            "-points",
            "-tiebreak",
            "-second_tiebreak",
            "seed",
            "joined_at",
            "pk",
        )
    )


def _pairings(tournament: Tournament) -> list[Pairing]:
    return list(
        Pairing.objects.filter(round__tournament=tournament)
        .select_related("table")
        .only(
            "id",
            "round_id",
            "group",
            "game_number",
            "starts_by",
            "done",
            "is_bye",
            "table__id",
            "table__status",
        )
        .order_by("group", "game_number", "pk")
    )


def _seats(tournament: Tournament, entries: dict[int, Entry]) -> dict[int, list[PairingSeat]]:
    """Each pairing's seats in seat order, each with its entry (from ``entries``: no join)."""
    by_pairing: dict[int, list[PairingSeat]] = defaultdict(list)
    seats = PairingSeat.objects.filter(pairing__round__tournament=tournament).order_by(
        "pairing_id", "position"
    )
    for seat in seats:
        seat.entry = entries[seat.entry_id]
        by_pairing[seat.pairing_id].append(seat)
    return by_pairing


def _stage(number: int, total: int) -> str:
    """A knockout round's name: the final, the semi-finals, the quarter-finals, round 1."""
    names = {0: _("The final"), 1: _("The semi-finals"), 2: _("The quarter-finals")}
    return names.get(total - number, _("Round %(number)d") % {"number": number})


def _reached(number: int, total: int, *, lost: bool) -> str:
    from_end = total - number
    if lost:
        names = {0: _("lost in the final"), 1: _("lost in the semi-finals")}
        names[2] = _("lost in the quarter-finals")
        return names.get(from_end, _("lost in round %(number)d") % {"number": number})
    names = {0: _("playing the final"), 1: _("playing the semi-finals")}
    names[2] = _("playing the quarter-finals")
    return names.get(from_end, _("playing round %(number)d") % {"number": number})


def _match_score(games: list[Game]) -> list[tuple[Entry, float]]:
    first = games[0].seats
    points = {seat.entry_id: 0.0 for seat in first}
    for game in games:
        for seat in game.seats:
            points[seat.entry_id] = points.get(seat.entry_id, 0.0) + (seat.points or 0.0)
    return [(seat.entry, points[seat.entry_id]) for seat in first]


def _knockout_reached(
    tournament: Tournament, entries: list[Entry], rounds: list[RoundView]
) -> dict[int, str]:
    """How far each entry went: the winner won it; who lost a match lost in that round; the
    others are playing the latest round they are in (or went through it with a bye)."""
    total = (max(len(entries), 2) - 1).bit_length()
    furthest: dict[int, int] = {}
    out: set[int] = set()
    for view in sorted(rounds, key=lambda v: v.round.number):
        number = view.round.number
        for bye in view.byes:
            furthest[bye.pk] = number
        for match in view.matches:
            for entry, _points in match.score:
                furthest[entry.pk] = number
            decided = all(game.pairing.done for game in match.games)
            (top, top_points), *rest = match.score
            if decided and rest and rest[0][1] != top_points:
                out.add(top.pk if top_points < rest[0][1] else rest[0][0].pk)
    reached = {}
    for entry in entries:
        if entry.user_id == tournament.winner_id:
            reached[entry.pk] = _("won the final")
        elif entry.pk in furthest:
            reached[entry.pk] = _reached(furthest[entry.pk], total, lost=entry.pk in out)
    return reached


def _groups(tournament: Tournament, entries: list[Entry], reached: dict[int, str]) -> list[Group]:
    """The standings' tables: one a round robin's group or a league's group of a division."""
    fmt = tournament.format
    if fmt not in (Format.ROUND_ROBIN, Format.LEAGUE):
        return [Group("", [Line(e, reached.get(e.pk, "")) for e in entries])]
    grouped: dict[tuple[int, int], list[Entry]] = defaultdict(list)
    for entry in entries:
        if fmt == Format.ROUND_ROBIN or entry.division:
            grouped[(entry.division, entry.group)].append(entry)
    in_division: dict[int, list[int]] = defaultdict(list)
    for division, group in grouped:
        in_division[division].append(group)
    groups = []
    for (division, group), members in grouped.items():
        if fmt == Format.ROUND_ROBIN:
            title = _("Group %(number)d") % {"number": group + 1} if len(grouped) > 1 else ""
        elif len(in_division[division]) > 1:
            title = _("Division %(division)d, group %(group)d") % {
                "division": division,
                "group": in_division[division].index(group) + 1,
            }
        else:
            title = _("Division %(division)d") % {"division": division}
        groups.append(Group(title, [Line(e) for e in members]))
    return groups


def _game(pairing: Pairing, seats: list[PairingSeat], round_: Round, viewer_id: int | None) -> Game:
    mine = next((s for s in seats if s.entry.user_id == viewer_id), None)
    waiting = (
        pairing.table_id is None
        and not pairing.done
        and pairing.starts_by is not None
        and round_.closed_at is None
    )
    may_ready = bool(waiting and mine and mine.ready_at is None and not mine.entry.withdrawn_at)
    return Game(pairing, seats, mine, waiting, may_ready)


def _round_title(tournament: Tournament, round_: Round, total: int) -> str:
    if tournament.format == Format.LEAGUE:
        return _("Season %(season)d, round %(number)d") % {
            "season": round_.season,
            "number": round_.number,
        }
    if tournament.format == Format.KNOCKOUT:
        return _stage(round_.number, total)
    return _("Round %(number)d") % {"number": round_.number}


def tournament_progress(
    tournament: Tournament, *, viewer_id: int | None, now: dt.datetime
) -> Progress:
    """The page of a tournament that runs or has finished, for ``viewer_id`` (None: a
    visitor), at ``now`` (whether its current round may be ended yet)."""
    entries = _entries(tournament)
    by_pk = {e.pk: e for e in entries}
    rounds = list(tournament.round_set.order_by("-season", "-number"))
    seats = _seats(tournament, by_pk)
    by_round: dict[int, list[Pairing]] = defaultdict(list)
    for pairing in _pairings(tournament):
        by_round[pairing.round_id].append(pairing)
    knockout = tournament.format == Format.KNOCKOUT
    total = (max(len(entries), 2) - 1).bit_length()
    views = []
    for round_ in rounds:
        view = RoundView(round_, _round_title(tournament, round_, total))
        matches: dict[int, list[Game]] = defaultdict(list)
        for pairing in by_round[round_.pk]:
            at = seats[pairing.pk]
            if pairing.is_bye:
                view.byes.extend(seat.entry for seat in at)
                continue
            game = _game(pairing, at, round_, viewer_id)
            if knockout:
                matches[pairing.group].append(game)
            else:
                view.games.append(game)
        for group, games in sorted(matches.items()):
            view.matches.append(Match(group + 1, games, _match_score(games)))
        views.append(view)
    reached = _knockout_reached(tournament, entries, views) if knockout else {}
    league = tournament.format == Format.LEAGUE
    current = next((r for r in rounds if r.closed_at is None), None)
    running = tournament.status == Tournament.Status.RUNNING
    creator = viewer_id is not None and viewer_id == tournament.created_by_id
    # round_end's own rule (tournaments/services/entries.py): once its closes_at has passed.
    may_end = bool(creator and running and current is not None)
    end_from = current.closes_at if current is not None else None
    if may_end and end_from is not None and now < end_from:
        may_end = False  # not yet: the page says from when
    else:
        end_from = None
    return Progress(
        tiebreaks=TIEBREAKS.get(tournament.format),
        is_knockout=knockout,
        groups=_groups(tournament, entries, reached),
        resting=[e for e in entries if league and not e.division],
        rounds=views,
        entries=entries,
        mine=next((e for e in entries if e.user_id == viewer_id), None),
        winner=next((e for e in entries if e.user_id == tournament.winner_id), None),
        current=current,
        may_end_round=may_end,
        end_round_from=end_from,
    )


def tournament_version(tournament_id: int) -> int | None:
    """What the page's poll compares (one query); None: no such tournament."""
    return Tournament.objects.filter(pk=tournament_id).values_list("version", flat=True).first()
