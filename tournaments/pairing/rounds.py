"""What every pairing returns: the round's tables, each in seat order, and its byes."""

from __future__ import annotations

from dataclasses import dataclass

from tournaments.pairing.history import PlayerId


@dataclass(frozen=True, slots=True)
class Table:
    """One game to start: ``seats[0]`` plays first, then ``seats[1]``, and so on."""

    seats: tuple[PlayerId, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """A round's tables (the best-placed table first) and who sits out with a bye."""

    tables: tuple[Table, ...]
    byes: tuple[PlayerId, ...] = ()

    def players(self) -> tuple[PlayerId, ...]:
        """Everyone the round names, seated or with a bye."""
        return tuple(p for table in self.tables for p in table.seats) + self.byes
