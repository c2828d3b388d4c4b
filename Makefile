# The FIDO service's commands. `make demo` runs the service with demo data on the embedded
# default; `make test` runs the whole suite (on PostgreSQL/Redis when DATABASE_URL/REDIS_URL
# are set, as .ci/run does).
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.8
DEMO_PORT ?= 8000
PYTEST_ARGS ?=
BENCH_ARGS ?=
# manage.py, WSGI and Celery default to the production settings (which refuse to start
# without a real SECRET_KEY and ALLOWED_HOSTS); every target here is a development run.
export DJANGO_SETTINGS_MODULE ?= fido.settings.base

.PHONY: install demo test lint format lock bench clean

install: $(VENV)/.installed

# Idempotent: the venv is created once, and re-synced only when the lock file changes. The
# dependencies are compiled to bytecode at install (as a deployment image does): without it,
# where PYTHONDONTWRITEBYTECODE is set, every process compiles Django again (~1 s of CPU).
$(VENV)/.installed: requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install -q --disable-pip-version-check "uv==$(UV_VERSION)" 2>&1 | grep -v "^WARNING: Location" || true
	$(BIN)/uv pip sync --python $(BIN)/python -q --compile-bytecode requirements.lock
	@touch $@

# Re-pin every dependency after editing pyproject.toml.
lock: 
	$(BIN)/uv pip compile pyproject.toml --extra dev --generate-hashes --python-version 3.11 -o requirements.lock

# The demo always runs on the embedded default and the development settings, whatever the
# shell exports.
DEMO_ENV := env -u DATABASE_URL -u REDIS_URL DJANGO_SETTINGS_MODULE=fido.settings.base
demo: install
	@$(DEMO_ENV) $(BIN)/python manage.py migrate --noinput -v0
	@$(DEMO_ENV) $(BIN)/python manage.py seed_demo
	@echo
	@echo "  FIDO demo: http://127.0.0.1:$(DEMO_PORT)/   (Ctrl-C stops web, worker and beat)"
	@echo
	@$(DEMO_ENV) $(BIN)/honcho -f deploy/Procfile.demo start -p $(DEMO_PORT)

test: install
	$(BIN)/pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/python manage.py makemigrations --check --dry-run -v0

# Every benchmark (bench/run_all.py): writes bench/results/ and the generated blocks of
# docs/performance.md; BENCH_ARGS=--quick runs each at a small scale into bench/results/quick/.
bench: install
	$(BIN)/python bench/run_all.py $(BENCH_ARGS)

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf var .pytest_cache .mypy_cache .ruff_cache
