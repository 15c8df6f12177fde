"""The site's PostgreSQL connections compile no query (``config.settings.POSTGRESQL_OPTIONS``):
a page's short queries never pay for a JIT that the planner's cost estimate of years of rows
would start."""

from __future__ import annotations

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's setting")
def test_a_connection_has_jit_off():
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone() == ("off",)


def test_the_site_and_its_tests_ask_for_it(settings):
    import config.settings

    assert "-c jit=off" in config.settings.POSTGRESQL_OPTIONS
    if connection.vendor == "postgresql":
        assert (
            config.settings.POSTGRESQL_OPTIONS
            in settings.DATABASES["default"]["OPTIONS"]["options"]
        )
