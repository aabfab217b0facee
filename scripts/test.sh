#!/usr/bin/env bash
# `make test`: the set-up of `make run` (no web server, no worker), then ruff (lint, format
# check), mypy, import-linter's layer contracts, a check that migrations are complete, and the
# whole pytest suite against the real PostgreSQL and Redis; stops the services it started.
# Extra arguments go to pytest (e.g. `make test PYTEST_ARGS="-k neardup -x"`).

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

STARTED_FILE="$(mktemp)"
export SERVICES_STARTED_FILE="$STARTED_FILE"
# The test data is thrown away: a PostgreSQL this command starts skips fsync (services.sh).
export PG_DURABLE="${PG_DURABLE:-0}"
RESULTS=()
FAILED=0

cleanup() {
    trap - EXIT INT TERM
    local svc
    for svc in $(tac "$STARTED_FILE" 2>/dev/null); do "$ROOT/scripts/services.sh" stop "$svc"; done
    rm -f "$STARTED_FILE"
}

# stage NAME COMMAND...: run one check, record "NAME ok|FAILED (seconds)", keep going.
stage() {
    local name="$1" start rc=0
    shift
    log "$name: $*"
    start="$(date +%s)"
    "$@" || rc=$?
    local took=$(($(date +%s) - start))
    if [ "$rc" -eq 0 ]; then
        RESULTS+=("$name ok (${took}s)")
    else
        RESULTS+=("$name FAILED rc=$rc (${took}s)")
        FAILED=1
    fi
}

# pytest exits 5 when it collected nothing: a suite that silently lost its tests is a failure.
run_pytest() {
    local rc=0
    # shellcheck disable=SC2086  # PYTEST_ARGS is a user-given word list
    # Property tests with fixed examples (tests/conftest.py): a run is reproducible.
    HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" \
        "$VENV/bin/python" -m pytest --durations=15 ${PYTEST_ARGS:-} "$@" 2>&1 |
        tee "$LOGDIR/pytest.log" || rc=$?
    # The final "N passed, M failed in Ts" line, with or without -q's missing ==== frame.
    PYTEST_SUMMARY="$(grep -E '(passed|failed|errors?|skipped|no tests ran).* in [0-9.]+s' \
        "$LOGDIR/pytest.log" | tail -n 1 | tr -d '=' | sed 's/^ *//; s/ *$//')" || true
    if [ "$rc" -eq 5 ]; then
        echo "pytest collected no tests" >&2
    fi
    return "$rc"
}

main() {
    trap cleanup EXIT
    trap 'exit 130' INT TERM
    local t0
    t0="$(date +%s)"
    setup_system
    setup_venv
    setup_wordnet
    setup_services
    export_app_env
    export DJANGO_SETTINGS_MODULE=config.settings.test
    mkdir -p "$LOGDIR"
    cd "$ROOT" || die "cannot enter $ROOT"

    PYTEST_SUMMARY=""
    stage ruff "$VENV/bin/ruff" check .
    stage format "$VENV/bin/ruff" format --check .
    stage mypy "$VENV/bin/mypy"
    stage imports "$VENV/bin/lint-imports"
    # A model change without its migration passes pytest (the test DB is built from the
    # migrations) and then breaks `make run`; catch it here.
    stage migrations "$VENV/bin/python" manage.py makemigrations --check --dry-run
    set -o pipefail
    stage pytest run_pytest "$@"

    echo
    log "make test summary (total $(($(date +%s) - t0))s)"
    local line
    for line in "${RESULTS[@]}"; do echo "    $line"; done
    [ -n "$PYTEST_SUMMARY" ] && echo "    pytest: $PYTEST_SUMMARY"
    local verdict=PASS
    [ "$FAILED" -eq 0 ] || verdict=FAIL
    local joined
    joined="$(printf '%s; ' "${RESULTS[@]}")"
    echo "make test: $verdict (${joined%; }) ${PYTEST_SUMMARY:+pytest: $PYTEST_SUMMARY}"
    return "$FAILED"
}

main "$@"
