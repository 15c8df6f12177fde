"""Long lists a page at a time, at the cost of a page: the list is counted and a page's keys
found by a query that an index answers alone (in the list's order), then only the page's rows
are read, by those keys, in the same query. A deep page (the leaderboard's 500th, the last of a
history of 5,000 games) skips index entries, not rows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, overload

from django.db.models import QuerySet


class KeyedRows:
    """What ``django.core.paginator.Paginator`` counts and slices: ``keys`` (filtered and
    ordered, the index's work) counted, and sliced for a page's ``key`` values; ``rows`` (in
    the same order, with what the page shows joined or prefetched) read for those values."""

    def __init__(
        self, keys: QuerySet[Any], rows: QuerySet[Any], key: str = "pk", row_key: str | None = None
    ) -> None:
        """``key``: the keys' column; ``row_key``: the rows' (the same unless given), as when a
        player's seats are the keys and their tables the rows."""
        self.keys, self.rows, self.key = keys, rows, key
        self.row_key = row_key or key

    def count(self) -> int:
        return self.keys.count()

    def __len__(self) -> int:
        return self.count()

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, int):
            return self[index : index + 1][0]
        found = self.keys.values(self.key)[index]
        return list(self.rows.filter(**{f"{self.row_key}__in": found}))

    def __iter__(self) -> Iterator[Any]:  # every row: the paginator reads a page, never this
        return iter(self[0 : self.count()])
