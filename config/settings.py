"""One settings module, driven by the environment.

With nothing set: SQLite, the in-memory channel layer, Celery tasks run in
process, e-mail printed to the console. ``DATABASE_URL`` switches to PostgreSQL,
``REDIS_URL`` to the Redis channel layer and a real Celery broker.
"""

from __future__ import annotations

import datetime as dt
import os
import secrets
import sys
import tempfile
from collections.abc import Mapping, MutableMapping
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DJANGO_DEBUG")
TESTING = "PYTEST_VERSION" in os.environ


def needs_secret_key(argv: list[str]) -> bool:
    """Whether this process must be given the real secret key: anything that serves.

    ASGI and WSGI servers, Celery, ``runserver`` and ``check --deploy`` refuse to start
    without it. A manage.py command that serves nothing (``verify_game --file``, as the
    README and the replay page print it on a fresh clone) runs on a random key of its own.
    """
    if not argv or Path(argv[0]).name != "manage.py":
        return True
    command = argv[1] if len(argv) > 1 else ""
    return command in {"runserver", "runworker"} or (command == "check" and "--deploy" in argv)


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if DEBUG or TESTING:
        SECRET_KEY = "django-insecure-development-only-key-never-use-in-production"
    elif needs_secret_key(sys.argv):
        raise ImproperlyConfigured("Set DJANGO_SECRET_KEY (or DJANGO_DEBUG=1 for development).")
    else:
        sys.stderr.write(
            "DJANGO_SECRET_KEY is not set: this command runs on a random key of its own "
            "(nothing it signs will be valid elsewhere).\n"
        )
        SECRET_KEY = secrets.token_urlsafe(50)

ALLOWED_HOSTS = env_list(
    "DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]" if DEBUG or TESTING else ""
)
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")
CSRF_FAILURE_VIEW = "games.views.errors.csrf_failure"


def site_url(environ: Mapping[str, str]) -> str:
    """The site's public address, for links in e-mails: ``SITE_URL``, else this machine on
    ``PORT`` (so ``PORT=8111 make run`` links to port 8111)."""
    default = f"http://localhost:{environ.get('PORT') or '8000'}"
    return (environ.get("SITE_URL") or default).rstrip("/")


SITE_URL = site_url(os.environ)
# The name e-mails give the site; the sites framework's row follows SITE_NAME and SITE_URL on
# every migrate (accounts/sites.py), so allauth's e-mails never say "example.com".
SITE_NAME = os.environ.get("SITE_NAME", "Card Tables")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",  # allauth.mfa's list of security keys
    "django.contrib.sites",
    "django_htmx",
    "csp",
    "channels",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "allauth.usersessions",
    "axes",
    "accounts",
    "games",
    "community",
    "tournaments",
    "ninja",  # its documentation page's files, served from here (no CDN)
    "api",
]
# The tournaments (issue 29): their pages, their links in the lobby and on profiles. An operator
# may shut them (TOURNAMENTS_OPEN=0: every page a 404, no link); the sweep still plays out the
# tournaments already running.
TOURNAMENTS_OPEN = env_bool("TOURNAMENTS_OPEN", True)
# The open API (api/): requests a token may make in a minute; more answer 429 with Retry-After.
API_RATE_PER_MINUTE = int(os.environ.get("API_RATE_PER_MINUTE", "300"))
# Its streams: a ping line this often (seconds), and the token checked this often, so that a
# revoked token's open stream ends within it.
API_STREAM_KEEP_ALIVE = float(os.environ.get("API_STREAM_KEEP_ALIVE", "7"))
API_STREAM_TOKEN_CHECK = float(os.environ.get("API_STREAM_TOKEN_CHECK", "4"))

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The headers every answer carries, error pages included (below: what they allow).
    "csp.middleware.CSPMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "config.middleware.NullCharacterMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and board fragments gzipped (Django's has BREACH's mitigation); static files are
    # answered by whitenoise above, compressed ahead of time.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # allauth's forms posted with bad input answer 400, not 200 (accounts/middleware.py).
    "accounts.middleware.RefusedFormStatusMiddleware",
    "accounts.middleware.UserTimeZoneMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    "accounts.middleware.OnlineMarkMiddleware",
    "accounts.middleware.SessionSeenMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "django.template.context_processors.tz",
                "accounts.context_processors.display_settings",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Tests open connections from live-server threads; persistent ones would outlive them.
        conn_max_age=0 if TESTING else int(os.environ.get("DB_CONN_MAX_AGE", "60")),
    )
}
# No JIT compilation of a query: PostgreSQL starts it from the planner's cost estimate
# (jit_above_cost), which years of rows pass for queries that read a few thousand index entries
# (a player's record of 5,000 games: 10 ms of compiling for 8 ms of work), and a page's queries
# are too short to pay it back. bench/years measures it.
POSTGRESQL_OPTIONS = "-c jit=off"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Browser tests serve pages from threads with their own connections: an in-memory
    # test database would lock; a file in WAL mode, whose writers queue for the lock
    # at the start of a transaction, waits instead. One file per test run.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        timeout=20,
        transaction_mode="IMMEDIATE",
        init_command="PRAGMA journal_mode=WAL;",
    )
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"cardtables-test-{os.getpid()}.sqlite3")
    }
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and TESTING:
    # A test database need not survive a crash of its server: a commit that does not wait
    # for its WAL to reach the disk takes 0.1 ms here instead of 1.1 (the tests and the
    # servers and workers they start commit tens of thousands of times).
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = (
        f"-c synchronous_commit=off {POSTGRESQL_OPTIONS}"
    )
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {})["options"] = POSTGRESQL_OPTIONS
    # Under ASGI each concurrent request runs on a thread of its own, so persistent
    # connections pile up (one per thread) until PostgreSQL refuses more: a pool per
    # process bounds them, and a request beyond it waits for a free connection.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": 1,
        "max_size": int(os.environ.get("DB_POOL_SIZE", "8")),
        "timeout": 20,
    }
# Threads a web process gives its table sockets' database work (games.live.consumers): fewer
# than the pool's connections, so that HTTP requests still find one.
LIVE_DATABASE_THREADS = int(os.environ.get("LIVE_DATABASE_THREADS", "4"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out login
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
SITE_ID = 1
LOGIN_REDIRECT_URL = "lobby"
LOGIN_URL = "account_login"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
# The sign-up form says the password rules only when they matter (accounts/forms.py).
ACCOUNT_FORMS = {
    "signup": "accounts.forms.SignupForm",
    "add_email": "accounts.email_change.ChangeEmailForm",
}
ACCOUNT_EMAIL_VERIFICATION = os.environ.get("ACCOUNT_EMAIL_VERIFICATION", "optional")
# One address a player: a new one waits beside it until its confirmation link is followed, then
# replaces it; reminders and notifications keep going to the old one until then
# (accounts/email_change.py).
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_LOGOUT_REDIRECT_URL = "lobby"
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "http" if DEBUG or TESTING else "https"

# Failed sign-ins slow the address that fails, never the name everywhere (docs/deploy.md, "Sign-in
# attempts"): allauth counts failures per address only (its default also counts 5 in 5 minutes
# per name from anywhere, which let a stranger keep a player out of their own account), and
# django-axes locks one name from one address after 5 failures for 15 minutes. A player whose
# name is attacked signs in from their own address, or by a code mailed to them. Behind a proxy,
# the ASGI server must put the client's address in REMOTE_ADDR (uvicorn --proxy-headers), or
# every player would share the proxy's.
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip,60/h/ip"}
ACCOUNT_LOGIN_BY_CODE_ENABLED = True

# Two-factor sign-in, optional per player (allauth.mfa; docs/deploy.md, "Two-factor and
# passkeys"): an authenticator app's codes (TOTP) with recovery codes, and passkeys (WebAuthn),
# either as the second factor or to sign in without a password where the browser holds one.
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_TOTP_ISSUER = "Card Tables"
# A code of the period before or after is taken too (RFC 6238's one step of clock drift).
MFA_TOTP_TOLERANCE = 1
# Its passkey forms refuse a payload that is no browser's answer (400, where some were a 500),
# and a key's name is at most 60 characters (accounts/passkey_forms.py).
MFA_FORMS = {
    "add_webauthn": "accounts.passkey_forms.AddKeyForm",
    "signup_webauthn": "accounts.passkey_forms.SignupKeyForm",
    "edit_webauthn": "accounts.passkey_forms.EditKeyForm",
    "authenticate_webauthn": "accounts.passkey_forms.AuthenticateKeyForm",
    "login_webauthn": "accounts.passkey_forms.LoginKeyForm",
    "reauthenticate_webauthn": "accounts.passkey_forms.ReauthenticateKeyForm",
}
# The devices a player is signed in on (allauth.usersessions; accounts/sessions.py stamps
# their last visit itself, every few minutes, rather than allauth's write on every request).
USERSESSIONS_TRACK_ACTIVITY = False
# Where a device signs in from: a MaxMind GeoLite2 City file, if the operator has one
# (docs/deploy.md, "Signed-in devices"); without it, the address alone.
GEOIP_CITY_DB = os.environ.get("GEOIP_CITY_DB", "")
# WebAuthn needs https, but for a development or test server on plain http.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = DEBUG or TESTING
AXES_ENABLED = env_bool("AXES_ENABLED", not TESTING)
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = dt.timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_USERNAME_CALLABLE = "accounts.throttle.login_name"
AXES_LOCKOUT_TEMPLATE = "axes/lockout.html"
AXES_RESET_ON_SUCCESS = True

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("cs", _("Czech")),
    ("sk", _("Slovak")),
    ("ca", _("Catalan")),
    ("hu", _("Hungarian")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or TESTING
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Development and tests serve static files straight from the finders.
WHITENOISE_AUTOREFRESH = DEBUG or TESTING
WHITENOISE_USE_FINDERS = DEBUG or TESTING


def redis_database(url: str, number: int) -> str:
    """``url`` with another database number: the cache's keys apart from the broker's."""
    url = url.rstrip("/")
    base, _, last = url.rpartition("/")
    return f"{base}/{number}" if last.isdigit() and base.count("/") >= 2 else f"{url}/{number}"


def redis_database_number(url: str) -> int:
    """The database a Redis URL names (0 when it names none)."""
    last = url.rstrip("/").rpartition("/")[2]
    return int(last) if last.isdigit() and url.count("/") >= 3 else 0


def redis_for_test_worker(environ: MutableMapping[str, str], worker: str) -> None:
    """Under pytest-xdist (``make test`` runs two workers), each worker's Redis databases of
    its own: worker gwK takes REDIS_URL's database + 2K (channel layer, broker) and the one
    after it (the cache, which tests empty with FLUSHDB), so one worker's tables, groups and
    cache.clear() never meet the other's (both number their tables from 1). Written into the
    environment, once per worker: a uvicorn or Celery worker the test starts inherits them."""
    if environ.get("PYTEST_REDIS_WORKER") == worker:  # a server this worker started
        return
    url = environ["REDIS_URL"]
    number = redis_database_number(url) + 2 * int(worker.removeprefix("gw") or 0)
    environ["REDIS_URL"] = redis_database(url, number)
    environ["REDIS_CACHE_URL"] = redis_database(url, number + 1)
    environ["PYTEST_REDIS_WORKER"] = worker


if TESTING and os.environ.get("REDIS_URL"):
    redis_for_test_worker(os.environ, os.environ.get("PYTEST_XDIST_WORKER", "gw0"))
REDIS_URL = os.environ.get("REDIS_URL", "")
# A Redis that hangs answers nothing: every client gives up after these (seconds), and then
# every client of that server (cache, channel layer, broadcast, bot-turn queue: one breaker
# per server, config/redis_guard.py) leaves it alone in that process for REDIS_PAUSE_SECONDS,
# so a hung Redis costs a request a few hundred milliseconds, once, and players only their
# live updates (pages poll meanwhile).
# In tests they are longer: the shared Redis of a loaded machine (two test workers, browsers,
# other runs) may take more than half a second to answer, and a test whose Redis was thought
# hung would fail for nothing. The tests that hang a Redis of their own set the site's
# timeouts (SITE_REDIS_TIMEOUTS; tests/conftest.py's site_redis_timeouts).
SITE_REDIS_TIMEOUTS = {"REDIS_SOCKET_TIMEOUT": 0.5, "REDIS_CONNECT_TIMEOUT": 0.3}
TEST_REDIS_TIMEOUTS = {"REDIS_SOCKET_TIMEOUT": 5.0, "REDIS_CONNECT_TIMEOUT": 2.0}
_REDIS_TIMEOUTS = TEST_REDIS_TIMEOUTS if TESTING else SITE_REDIS_TIMEOUTS
REDIS_SOCKET_TIMEOUT = float(
    os.environ.get("REDIS_SOCKET_TIMEOUT", _REDIS_TIMEOUTS["REDIS_SOCKET_TIMEOUT"])
)
REDIS_CONNECT_TIMEOUT = float(
    os.environ.get("REDIS_CONNECT_TIMEOUT", _REDIS_TIMEOUTS["REDIS_CONNECT_TIMEOUT"])
)
REDIS_PAUSE_SECONDS = float(os.environ.get("REDIS_PAUSE_SECONDS", "5"))
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "config.redis_guard.GuardedChannelLayer",
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": REDIS_SOCKET_TIMEOUT,
                        "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
                    }
                ]
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    # kombu's Redis transport, but an acknowledgement that times out in a Redis pause no longer
    # leaves the worker deaf (config/broker.py).
    CELERY_BROKER_TRANSPORT = "config.broker:Transport"
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://"


# Sessions, preferences, presence and the boards' public parts (games/board_cache.py), shared
# by every web process through Redis; a process's own memory on the embedded default. A cache
# that does not answer within a few hundred milliseconds is skipped (a miss, a write that does
# nothing) while its server's breaker is open: the board is rendered, the row read instead.
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "config.redis_guard.GuardedRedisCache",
            "LOCATION": os.environ.get("REDIS_CACHE_URL", redis_database(REDIS_URL, 1)),
            "OPTIONS": {
                "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
                "socket_timeout": REDIS_SOCKET_TIMEOUT,
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
# Sessions read from the cache, written through to the database (a cache that fails is
# skipped): a signed-in request reads no session row.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
# How background work runs: "celery" (a worker and beat, with Redis), "thread" (the
# embedded default: a thread of the web process), "inline" (tests: at once, in order).
TASKS_MODE = os.environ.get(
    "TASKS_MODE", "inline" if TESTING else ("celery" if REDIS_URL else "thread")
)
CELERY_TASK_ALWAYS_EAGER = TASKS_MODE != "celery"
# The deadline sweep also rescues a bot turn whose queued task was lost (a broker that failed
# when it was queued, or came back empty): a bot seat's deadline is BOT_RESCUE_SECONDS away, so
# such a turn is played within about both of these after its turn began, or after the broker
# came back. An indexed query that finds nothing most of the time: cheap every few seconds.
SWEEP_DEADLINES_SECONDS = float(os.environ.get("SWEEP_DEADLINES_SECONDS", "10"))
SWEEP_SECONDS = float(os.environ.get("SWEEP_SECONDS", "60"))
CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {"task": "games.tasks.sweep_deadlines", "schedule": SWEEP_DEADLINES_SECONDS},
    "sweep-reminders": {"task": "games.tasks.sweep_reminders", "schedule": SWEEP_SECONDS},
    "sweep-vacations": {"task": "games.tasks.sweep_vacations", "schedule": SWEEP_SECONDS},
    "sweep-note-mails": {"task": "community.tasks.sweep_note_mails", "schedule": SWEEP_SECONDS},
    "sweep-pushes": {"task": "community.tasks.sweep_pushes", "schedule": SWEEP_DEADLINES_SECONDS},
    "sweep-sessions": {"task": "accounts.tasks.sweep_sessions", "schedule": 3600},
    "sweep-pace": {"task": "games.tasks.sweep_pace", "schedule": SWEEP_SECONDS},
    "sweep-places": {"task": "games.tasks.sweep_places", "schedule": 300},
    "sweep-tournaments": {"task": "tournaments.tasks.sweep", "schedule": SWEEP_SECONDS},
}
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = "UTC"
# The broker (and a result backend, if one is ever set: tasks keep none now) with the same
# short timeouts: a web process that queues a bot turn while Redis hangs waits at most one
# socket timeout, without retrying (games.jobs.tasks then stops queueing for a while; the
# deadline sweep plays a bot turn whose queueing failed). The worker keeps reconnecting.
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_CONNECT_TIMEOUT
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": REDIS_SOCKET_TIMEOUT,
    "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
    "max_retries": 0,
}
CELERY_TASK_PUBLISH_RETRY = False
CELERY_REDIS_SOCKET_TIMEOUT = REDIS_SOCKET_TIMEOUT
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = REDIS_CONNECT_TIMEOUT
CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"retry_policy": {"max_retries": 0}}
CELERY_TASK_IGNORE_RESULT = True

EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if os.environ.get("EMAIL_HOST")
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", f"{SITE_NAME} <noreply@localhost>")

# Browser push (Web Push with VAPID, community.services.push): on once both keys are set;
# `python manage.py vapid_keys` makes a pair. The subject is how a push service reaches the
# operator. A push waits at the push service for at most PUSH_TTL_SECONDS (pywebpush's default
# of 0 lets it drop an alert to a sleeping phone).
WEBPUSH_VAPID_PRIVATE_KEY = os.environ.get("WEBPUSH_VAPID_PRIVATE_KEY", "")
WEBPUSH_VAPID_PUBLIC_KEY = os.environ.get("WEBPUSH_VAPID_PUBLIC_KEY", "")
WEBPUSH_SUBJECT = os.environ.get("WEBPUSH_SUBJECT", "mailto:noreply@localhost")
PUSH_TTL_SECONDS = int(os.environ.get("PUSH_TTL_SECONDS", str(24 * 3600)))
# Push endpoints are https URLs of the browsers' push services; a local one only for tests.
WEBPUSH_LOCAL_ENDPOINTS = TESTING

# Content-Security-Policy, enforced (django-csp): scripts, styles, images and fonts from the
# site only, and no inline script, style attribute or event handler anywhere (pages, board
# fragments, error pages; htmx's own indicator style is off, its rules are in site.css).
# "data:" images: site.css draws the paper grain as an SVG data URL. connect-src 'self' covers
# the site's own websocket (ws:/wss: of the same host, CSP Level 3: Chromium, Firefox,
# Safari 15.4+) as well as the display form's fetch and htmx's requests.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        # The service worker that shows browser push (static/js/push-sw.js).
        "worker-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}
# Permissions-Policy (django-permissions-policy): the powerful features off; the site uses
# none of them, so neither it nor anything that might get into a page can ask for them. Only
# features Chromium knows: an unknown one is a console warning on every page (the browser test
# tests/e2e/test_content_security_policy.py reads the console).
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "encrypted-media",
        "gamepad",
        "geolocation",
        "gyroscope",
        "hid",
        "idle-detection",
        "local-fonts",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "picture-in-picture",
        "screen-wake-lock",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
}
# Passkeys (allauth.mfa's WebAuthn) ask for credentials from the site's own pages only.
PERMISSIONS_POLICY["publickey-credentials-get"] = ["self"]
# The language and display cookies (accounts/views.py) are read by the server only.
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"

# Production hardening: on whenever DEBUG is off, so `check --deploy` is clean.
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", not TESTING)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = not TESTING
    CSRF_COOKIE_SECURE = not TESTING
    LANGUAGE_COOKIE_SECURE = not TESTING
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    # In development Django and uvicorn already log to the console; don't print twice.
    "root": {
        "handlers": [] if DEBUG else ["console"],
        "level": os.environ.get("LOG_LEVEL", "WARNING"),
    },
}

# How often an open table page asks whether the table changed (milliseconds).
TABLE_POLL_MS = int(os.environ.get("TABLE_POLL_MS", "2500"))

if TESTING:
    # Hashing passwords slowly protects real accounts, not test ones.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

VACATION_DAYS_PER_YEAR = 30
# A bot waits this long before its move, so people can follow what happens.
BOT_MOVE_DELAY_SECONDS = float(os.environ.get("BOT_MOVE_DELAY_SECONDS", "1.5"))
# A bot seat's deadline: its queued turn normally plays within BOT_MOVE_DELAY_SECONDS and the
# bot's thinking (under a second); if that task was lost, the deadline sweep plays the turn
# once this has passed. A sweep that comes while the task is only late changes nothing: both
# play under the table's lock and check its version, so the second finds nothing to do.
BOT_RESCUE_SECONDS = float(os.environ.get("BOT_RESCUE_SECONDS", "15"))
