# The two commands a newcomer needs: `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PORT ?= 8000

.PHONY: run test lint format install lock migrate bench messages translations screenshots

## Install exactly the locked tree: requirements.lock pins every package (runtime and dev
## tools, pip included) with its hashes, so a fresh clone gets the same files as CI.
$(VENV)/.installed: requirements.lock
	python3 -m venv $(VENV)
	$(PIP) install --quiet --require-hashes -r requirements.lock
	touch $@

install: $(VENV)/.installed

## requirements.txt (runtime) and requirements-dev.txt (tests, tools) are the files people
## edit; after editing them, `make lock` pins the new tree with hashes into requirements.lock
## (keeping every other pin; LOCK_ARGS=--upgrade moves them all to the newest releases).
## tests/test_lock.py fails while the lock disagrees with them.
lock: install
	CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile --quiet --generate-hashes \
		--allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
		$(LOCK_ARGS) --output-file requirements.lock requirements-dev.txt
	$(MAKE) install

# The embedded default is for development: DEBUG on unless told otherwise.
DEV_ENV := DJANGO_DEBUG=$${DJANGO_DEBUG:-1}

migrate: install
	$(DEV_ENV) $(PY) manage.py migrate --noinput

## Compile the translations (locale/*/LC_MESSAGES/django.po) into the .mo files Django reads.
messages: install
	@command -v msgfmt >/dev/null || { echo "make messages needs GNU gettext (msgfmt): apt-get install gettext"; exit 1; }
	DJANGO_DEBUG=1 $(PY) manage.py compilemessages --ignore=.venv

## After adding or changing a string: extract every marked string into the catalogues, each
## entry with its file but no line number (so that two branches adding strings rarely touch
## the same lines, nor the header's date), then translate the new entries.
translations: install
	DJANGO_DEBUG=1 $(PY) manage.py makemessages -l cs -l sk -l ca -l hu --add-location=file \
		--ignore=.venv --ignore=staticfiles --ignore=tests --ignore=bench --ignore=node_modules
	sed -i '/^"POT-Creation-Date: /d' locale/*/LC_MESSAGES/django.po

## Run the site on the embedded default: SQLite, in-process tasks, console e-mail. The same
## ASGI server as production (uvicorn), restarting when a Python file, a template or a
## compiled catalogue changes; static files come from whitenoise, fresh on every request.
run: migrate messages
	$(DEV_ENV) SITE_URL=$${SITE_URL:-http://localhost:$(PORT)} $(VENV)/bin/uvicorn \
		--host 127.0.0.1 --port $(PORT) --lifespan off --reload --reload-include '*.html' \
		--reload-include '*.mo' --ws config.websocket:WideWindowProtocol config.asgi:application

## Run every test (uses DATABASE_URL / REDIS_URL when set), on every core (pytest-xdist, at
## most 4 workers), each test file on one worker (its browser and servers started once), the
## browser files handed out first (tests/conftest.py), the longest then start early. Each
## worker has a test database and Redis databases of its own (config/settings.py). One test
## alone, in this process: `make test PYTEST_WORKERS=0 PYTEST_ARGS=tests/games/live/test_live.py`.
PYTEST_WORKERS ?= auto
test: install messages
	$(MAKE) lint
	$(VENV)/bin/ruff format --check .
	DJANGO_DEBUG=1 $(VENV)/bin/mypy
	DJANGO_DEBUG=1 $(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest -n $(PYTEST_WORKERS) --maxprocesses 4 --dist loadfile --no-loadscope-reorder \
		$(PYTEST_ARGS)

## The pictures in docs/screenshots/: every game's table at each size, at the player's turn and
## at the end (tests/e2e/screenshots.py, on a throwaway test database; Debian's Chromium). Run
## after a change to a table's look; tests/test_screenshots.py checks they are all listed.
screenshots: install messages
	$(PY) -m pytest tests/e2e/screenshots.py -q $(PYTEST_ARGS)

## The linters: ruff over the Python, eslint over static/js (eslint.config.mjs). eslint and its
## packages are npm's, pinned in package-lock.json: `npm ci` installs them again whenever the
## lock is newer than node_modules (git-ignored). Node.js and npm: Debian's `nodejs` and `npm`.
node_modules/.installed: package-lock.json
	@command -v npm >/dev/null || { echo "make lint needs Node.js and npm: apt-get install nodejs npm"; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

lint: install node_modules/.installed
	$(VENV)/bin/ruff check .
	node_modules/.bin/eslint static/js

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

## Load test: N players play every game over HTTP against a production-style stack of its own
## (fresh PostgreSQL database, private Redis, uvicorn with two workers, a Celery worker), plus
## pgbench's ceiling for a move-shaped transaction. Figures: docs/benchmarks.md ("Load").
.PHONY: bench-load
bench-load: install
	$(PY) -m bench.load $(BENCH_LOAD_ARGS)

## Every bench, each writing its figures into docs/benchmarks.md: rules speed, the bots' speed
## and strength (bench/bots.py, 200 games per pairing; about 25 minutes on 2 cores), Gnav's
## ceiling (bench/gnav_ceiling.py), the CPU of one request (bench/boards.py), the HTML's bytes
## with and without gzip (bench/page_bytes.py), a Swiss round's pairing (bench/pairing.py), the
## API's streams (bench/streams.py: 500 open, their memory, a move's delay to the other seat's
## stream; about 3 minutes), what a socket's deflate keeps and sends (bench/deflate.py), the
## open table pages of one web process (bench/pages.py: 1,000 and 5,000 websockets, their
## memory and a move's push to them), years of data (python -m bench.years: pages and sweeps
## on a database of 1,000,000 finished tables, 17 GB; about 45 minutes) and the load test
## (python -m bench.load, about 6 minutes). Run it on a quiet machine: the latencies depend on it.
bench: install
	$(PY) bench/bots.py $(BENCH_ARGS)
	$(PY) bench/gnav_ceiling.py --games 1000
	$(PY) bench/boards.py
	$(PY) bench/page_bytes.py
	$(PY) bench/pairing.py
	$(PY) bench/streams.py $(BENCH_STREAMS_ARGS)
	$(PY) bench/deflate.py
	$(PY) bench/pages.py $(BENCH_PAGES_ARGS)
	$(PY) -m bench.years $(BENCH_YEARS_ARGS)
	$(PY) -m bench.load $(BENCH_LOAD_ARGS)
