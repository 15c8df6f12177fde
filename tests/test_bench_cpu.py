"""The load benches' CPU by role counts PostgreSQL's work for their own database alone: the
backends of another database (other work on the machine) come and go between two readings,
and counting them made PostgreSQL's CPU a move negative (-57.3 ms in a run beside another's)."""

from __future__ import annotations

import pytest
from django.db import connection

from bench.load.stack import _postgres_counted, cpu_by_role

pytestmark = pytest.mark.django_db


def test_a_backend_counts_for_its_own_database_only() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid(), current_database()")
        pid, database = cursor.fetchone()
    assert _postgres_counted(pid, database)
    assert not _postgres_counted(pid, "bench_some_other_database")
    assert _postgres_counted(pid, None)  # no database named: every postgres process


def test_another_database_s_work_is_not_the_bench_s() -> None:
    before = cpu_by_role({}, "bench_some_other_database")["postgres"]
    everything_before = cpu_by_role({})["postgres"]
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM generate_series(1, 3000000)")
    spent_elsewhere = cpu_by_role({}, "bench_some_other_database")["postgres"] - before
    spent_in_all = cpu_by_role({})["postgres"] - everything_before
    assert spent_in_all > 0.1  # the query's own CPU, seen when every process counts
    assert spent_elsewhere < spent_in_all / 2
