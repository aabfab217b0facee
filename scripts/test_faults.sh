#!/usr/bin/env bash
# `make test-faults`: the set-up of `make test`, then tests/faults/run.py, which runs a Celery
# worker against this tree's PostgreSQL and Redis and stops, restarts and kills them while
# documents are uploaded and processed (see its docstring). Not part of `make test`: it waits
# through real outages (about 10 minutes). Leaves the services running as it found them.

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

main() {
    setup_system
    setup_venv
    setup_wordnet
    setup_services
    export_app_env
    cd "$ROOT" || die "cannot enter $ROOT"
    "$VENV/bin/python" tests/faults/run.py "$@"
}

main "$@"
