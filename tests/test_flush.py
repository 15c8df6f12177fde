"""What a transactional test leaves is gone before the next one (tests/conftest.py's flush by
DELETE instead of Django's TRUNCATE on PostgreSQL). The two tests run in this order."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection

from community.services.chat import chat_line_post
from games.services.tables import table_create, table_join
from tests.conftest import play_a_legal_move

pytestmark = pytest.mark.django_db(transaction=True)

# Filled again after every flush by post_migrate (content types, permissions, the site).
REFILLED = {"django_content_type", "auth_permission", "django_site"}


def _rows_by_table() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for model in apps.get_models():
            table = model._meta.db_table
            if table not in counts:
                cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
                counts[table] = cursor.fetchone()[0]
    return counts


def test_a_game_with_its_chat_leaves_rows_in_many_tables(alice, bob) -> None:
    table = table_create(user=alice, game="district-noir", num_seats=2, seconds_per_move=86400)
    table_join(table_id=table.pk, user=bob)
    play_a_legal_move(table)
    chat_line_post(table_id=table.pk, user=alice, room="table", text="good luck")

    filled = {name for name, count in _rows_by_table().items() if count}

    assert {"games_table", "games_seat", "games_move", "accounts_user"} <= filled


def test_the_next_test_finds_every_table_empty() -> None:
    left = {name: count for name, count in _rows_by_table().items() if count}

    assert set(left) <= REFILLED, left
