#!/usr/bin/env bash
# `make run`: set everything up, then run a Celery worker and gunicorn (reloading on code
# changes, DEBUG settings) on http://127.0.0.1:$WEB_PORT until Ctrl-C, which stops the worker,
# the web server and the PostgreSQL/Redis servers this command started (services already
# running are left up). A child that dies is started again (scripts/children.sh).

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# shellcheck source=scripts/children.sh
source "$(dirname "${BASH_SOURCE[0]}")/children.sh"

WEB_PORT="${WEB_PORT:-8000}"
# gthread workers: 50 uploads at once wait in gunicorn's backlog for one of the 16 threads
# instead of being reset; each thread keeps one database connection (CONN_MAX_AGE), well
# within PostgreSQL's max_connections.
WEB_WORKERS="${WEB_WORKERS:-2}"
WEB_THREADS="${WEB_THREADS:-8}"

# The development web server: gunicorn with --reload (a code change restarts its workers).
start_dev_web() {
    start_child "web server (gunicorn --reload)" - "$VENV/bin/gunicorn" config.wsgi:application \
        --config "$ROOT/config/gunicorn.py" \
        --chdir "$ROOT" \
        --bind "127.0.0.1:$WEB_PORT" \
        --workers "$WEB_WORKERS" --threads "$WEB_THREADS" \
        --timeout 300 \
        --reload \
        --access-logfile - \
        --error-logfile - \
        --no-control-socket
}

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
    # Everything from here on (uploads, logs, the instance's files) is private to this user.
    umask 077
    setup_services
    export_app_env
    export DJANGO_SETTINGS_MODULE=config.settings.dev
    setup_migrate
    setup_demo_user
    # Before the worker starts: documents analysed by an earlier feature model (after an
    # upgrade), and unfinished documents whose message the broker lost, are queued again.
    manage reanalyze --unfinished

    start_worker
    start_dev_web

    cat >&2 <<MSG

  copydetect is running:  http://127.0.0.1:$WEB_PORT/
  log in:                 http://127.0.0.1:$WEB_PORT/accounts/login/  as  $DEMO_USER / $DEMO_PASSWORD
  admin (same login):     http://127.0.0.1:$WEB_PORT/admin/
  worker log:             $LOGDIR/celery.log
  manage.py by hand:      $VENV/bin/python manage.py <command>  (reaches this instance)
  press Ctrl-C to stop everything this command started

MSG
    # A child that dies is started again; this fails only when one keeps dying.
    supervise_children
}

main "$@"
