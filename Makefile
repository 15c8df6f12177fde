# The two commands a newcomer needs: `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
PORT ?= 8000

.PHONY: run test lint format install migrate bench

$(VENV)/.installed: requirements.txt requirements-dev.txt
	python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

# The embedded default is for development: DEBUG on unless told otherwise.
DEV_ENV := DJANGO_DEBUG=$${DJANGO_DEBUG:-1}

migrate: install
	$(DEV_ENV) $(PY) manage.py migrate --noinput

## Run the site on the embedded default: SQLite, in-process tasks, console e-mail.
run: migrate
	$(DEV_ENV) $(PY) manage.py runserver $(PORT)

## Run every test (uses DATABASE_URL / REDIS_URL when set).
test: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DJANGO_DEBUG=1 $(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .
