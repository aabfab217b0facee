# Two commands on a fresh Debian 12 (root or a sudoer): `make run` and `make test`.
# All logic lives in scripts/; see docs/operations.md for what each step does.

SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help run serve test test-faults setup services-start services-stop services-status lint \
	reset-data load-test

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18

run:  ## install what is missing, start PostgreSQL/Redis/Celery/Django on :8000 (Ctrl-C stops)
	@bash scripts/run.sh

serve:  ## production mode: same set-up, gunicorn on BIND (127.0.0.1:8000) + worker (Ctrl-C stops)
	@bash scripts/serve.sh

test:  ## same set-up, then ruff, mypy and pytest against the real PostgreSQL and Redis
	@bash scripts/test.sh

test-faults:  ## stop/restart Redis, PostgreSQL and the worker under load; all must end done
	@bash scripts/test_faults.sh

setup:  ## install packages, virtualenv and WordNet data only
	@bash scripts/setup.sh system venv wordnet

services-start:  ## start PostgreSQL (54329) and Redis (63790) in the background, keep them up
	@bash scripts/services.sh start

services-stop:  ## stop this tree's PostgreSQL and Redis
	@bash scripts/services.sh stop

services-status:  ## show whether this tree's PostgreSQL and Redis run
	@bash scripts/services.sh status

load-test:  ## 50 uploads + 100 report reads against a running make run on WEB_PORT (8000)
	@.venv/bin/python scripts/load_test.py --url http://127.0.0.1:$${WEB_PORT:-8000}

lint:  ## ruff (lint, format check), mypy and the import-linter contracts only
	@.venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/mypy && .venv/bin/lint-imports

reset-data:  ## stop the services and delete var/ (database, Redis, logs, media)
	@bash scripts/services.sh stop
	rm -rf var
