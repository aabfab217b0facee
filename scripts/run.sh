#!/usr/bin/env bash
# `make run`: set everything up, then run a Celery worker and the Django development server
# on http://127.0.0.1:$WEB_PORT until Ctrl-C, which stops the worker, the web server and
# the PostgreSQL/Redis servers this command started (services already running are left up).

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# shellcheck source=scripts/children.sh
source "$(dirname "${BASH_SOURCE[0]}")/children.sh"

WEB_PORT="${WEB_PORT:-8000}"
main() {
    children_init
    trap cleanup EXIT
    # Ctrl-C is the documented way to stop, so it is a normal exit for make.
    trap 'exit 0' INT
    trap 'exit 143' TERM
    port_in_use "$WEB_PORT" && die "port $WEB_PORT is already in use (another make run?);" \
        "stop it or choose another: WEB_PORT=<port> make run"
    setup_system
    setup_venv
    setup_wordnet
    setup_services
    export_app_env
    export DJANGO_SETTINGS_MODULE=config.settings.dev
    setup_migrate
    setup_demo_user
    # Before the worker starts: documents analysed by an earlier feature model (after an
    # upgrade), and unfinished documents whose message the broker lost, are queued again.
    manage reanalyze --unfinished

    mkdir -p "$LOGDIR"
    start_child "Celery worker (log: $LOGDIR/celery.log)" "$LOGDIR/celery.log" \
        "$VENV/bin/celery" -A config.celery worker --loglevel=INFO \
        --concurrency="${CELERY_CONCURRENCY:-2}" --hostname="copydetect@%h"
    start_child "web server" - "$VENV/bin/python" "$ROOT/manage.py" runserver \
        "127.0.0.1:$WEB_PORT"

    cat >&2 <<MSG

  copydetect is running:  http://127.0.0.1:$WEB_PORT/
  log in:                 http://127.0.0.1:$WEB_PORT/accounts/login/  as  $DEMO_USER / $DEMO_PASSWORD
  admin (same login):     http://127.0.0.1:$WEB_PORT/admin/
  worker log:             $LOGDIR/celery.log
  press Ctrl-C to stop everything this command started

MSG
    # Return as soon as either child ends; the EXIT trap stops the other one.
    wait -n "${CHILD_PIDS[@]}" || true
    log "a child process ended; shutting down"
}

main "$@"
