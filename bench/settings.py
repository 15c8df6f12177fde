"""Settings for the benches (``python -m bench.load``, ``bench/boards.py``, ...): the production
settings, less three things.

A bench on one machine has no TLS proxy in front (so no HTTPS redirect and no
secure-only cookies), every simulated player comes from 127.0.0.1 (so the
per-address sign-in limits of allauth and django-axes are off), and static
files are collected into a temporary folder of the bench's own.
"""

import os

from config.settings import *  # noqa: F403

SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
ACCOUNT_RATE_LIMITS = False
AXES_ENABLED = False
STATIC_ROOT = os.environ["BENCH_STATIC_ROOT"]
