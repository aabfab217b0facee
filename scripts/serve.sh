#!/usr/bin/env bash
# `make serve`: the set-up of `make run`, then the product in production mode - settings
# config.settings.prod, collected static files served by WhiteNoise, a Celery worker and
# gunicorn on $BIND - until Ctrl-C or SIGTERM, which stops the worker, gunicorn and the
# PostgreSQL/Redis servers this command started (services already running are left up).
# No demo user: one left by `make run` is disabled; the operator creates accounts with
# `manage.py createsuperuser`. A child that dies is started again (scripts/children.sh).
#
# Sourced (tests), it only defines the functions.

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
# shellcheck source=scripts/children.sh
source "$(dirname "${BASH_SOURCE[0]}")/children.sh"

# WEB_PORT, as `make run` takes it, when no full BIND address is given.
BIND="${BIND:-127.0.0.1:${WEB_PORT:-8000}}"
WEB_WORKERS="${WEB_WORKERS:-2}"
WEB_THREADS="${WEB_THREADS:-4}"
# gthread workers: a request may take longer than this (a 20 MB ZIP over a slow line); the
# timeout only restarts a worker whose main loop stops answering for that long.
WEB_TIMEOUT="${WEB_TIMEOUT:-300}"
SECRET_KEY_FILE="${SECRET_KEY_FILE:-$VAR/secret_key}"
ACCESS_LOG="${ACCESS_LOG:-$LOGDIR/access.log}"
SERVE_NOTES=()  # lines of the start-up message (note)

# bind_host BIND / bind_port BIND: "host:port", "[v6]:port" or "host" (gunicorn's port 8000).
bind_host() {
    local bind="$1"
    case "$bind" in
        \[*\]:*) bind="${bind%:*}"; bind="${bind#[}"; echo "${bind%]}" ;;
        \[*\]) bind="${bind#[}"; echo "${bind%]}" ;;
        *:*) echo "${bind%:*}" ;;
        *) echo "$bind" ;;
    esac
}

bind_port() {
    case "$1" in
        \[*\]:*) echo "${1##*:}" ;;
        \[*\]) echo 8000 ;;
        *:*) echo "${1##*:}" ;;
        *) echo 8000 ;;
    esac
}

# Only a loopback address may run over plain HTTP (a proxy on the same machine or a browser
# there); a unix socket is assumed to sit behind a TLS proxy, so it keeps the secure defaults.
bind_is_loopback() {
    case "$1" in unix:*) return 1 ;; esac
    case "$(bind_host "$1")" in
        localhost | ::1 | 127.*) return 0 ;;
        *) return 1 ;;
    esac
}

# Whether something already listens where gunicorn would bind (a wildcard address clashes
# with a listener on the loopback one).
bind_in_use() {
    case "$1" in unix:*) return 1 ;; esac
    local host
    host="$(bind_host "$1")"
    case "$host" in "" | 0.0.0.0 | :: | localhost) host=127.0.0.1 ;; esac
    (exec 3<>"/dev/tcp/$host/$(bind_port "$1")") 2>/dev/null
}

# secret_key FILE: $SECRET_KEY when set, else the key in FILE, generated there once (mode
# 0600) so sessions and password-reset links survive a restart.
secret_key() {
    local file="$1"
    if [ -n "${SECRET_KEY:-}" ]; then
        printf '%s\n' "$SECRET_KEY"
        return 0
    fi
    if [ ! -s "$file" ]; then
        mkdir -p "$(dirname "$file")"
        (umask 077 && python3 -c 'import secrets; print(secrets.token_urlsafe(50))' >"$file.tmp")
        mv "$file.tmp" "$file"
    fi
    chmod 600 "$file"
    cat "$file"
}

# note LABEL TEXT: a line of the start-up message, aligned with the others.
note() {
    SERVE_NOTES+=("$(printf '%-24s%s' "$1" "$2")")
}

# The production settings' environment (config/settings/prod.py); the notes say what was
# chosen here and why.
export_prod_env() {
    export DJANGO_SETTINGS_MODULE=config.settings.prod
    if [ -n "${SECRET_KEY:-}" ]; then
        note "SECRET_KEY:" "from the environment"
    else
        note "SECRET_KEY:" "from $SECRET_KEY_FILE (made once, mode 0600)"
    fi
    SECRET_KEY="$(secret_key "$SECRET_KEY_FILE")"
    export SECRET_KEY
    if [ -n "${ALLOWED_HOSTS:-}" ]; then
        note "ALLOWED_HOSTS:" "$ALLOWED_HOSTS"
    else
        export ALLOWED_HOSTS=localhost,127.0.0.1
        note "ALLOWED_HOSTS:" "$ALLOWED_HOSTS (default; add the name users type:"
        note "" "ALLOWED_HOSTS=copy.example.org,localhost make serve)"
    fi
    # prod.py defaults both to 1, which makes plain-HTTP logins impossible (the cookies are
    # never sent back, every page redirects to https): off only on loopback, only if unset.
    local name
    for name in SECURE_COOKIES SECURE_SSL_REDIRECT; do
        if [ -n "${!name+set}" ]; then
            note "$name:" "${!name} (as set)"
        elif bind_is_loopback "$BIND"; then
            export "$name=0"
            note "$name:" "0 (plain HTTP on a loopback address; 1 behind a TLS proxy)"
        else
            note "$name:" "1 (not a loopback address: put a TLS proxy in front,"
            note "" "docs/operations.md#running-in-production)"
        fi
    done
}

# gunicorn_command: the web server's argv, NUL-separated (the end-to-end test runs this very
# command); config/gunicorn.py holds what `make run` shares (gthread, graceful stop, request
# limits). --no-control-socket: its default path ($HOME/.gunicorn/gunicorn.ctl) is shared by
# every gunicorn of the user, so two instances would take it from each other.
gunicorn_command() {
    printf '%s\0' "$VENV/bin/gunicorn" config.wsgi:application \
        --config "$ROOT/config/gunicorn.py" \
        --chdir "$ROOT" \
        --bind "$BIND" \
        --workers "$WEB_WORKERS" \
        --threads "$WEB_THREADS" \
        --timeout "$WEB_TIMEOUT" \
        --access-logfile "$ACCESS_LOG" \
        --error-logfile - \
        --no-control-socket
}

start_gunicorn() {
    local -a command
    mapfile -d '' -t command < <(gunicorn_command)
    mkdir -p "$(dirname "$ACCESS_LOG")"
    start_child "gunicorn on $BIND (access log: $ACCESS_LOG)" - "${command[@]}"
}

# disable_demo_user: the `demo` superuser that `make run` keeps (known password) must not
# exist in production. It is disabled, not deleted (deleting would delete its collections):
# no usable password, inactive, no staff rights, its API token and sessions gone. Loud.
disable_demo_user() {
    local out
    out="$(DEMO_USER="$DEMO_USER" manage shell -c '
import os
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
User = get_user_model()
user = User.objects.filter(**{User.USERNAME_FIELD: os.environ["DEMO_USER"]}).first()
if user is not None and (user.is_active or user.has_usable_password()):
    user.set_unusable_password()
    user.is_active = user.is_staff = user.is_superuser = False
    user.save()
    try:
        from rest_framework.authtoken.models import Token
        Token.objects.filter(user=user).delete()
    except ImportError:
        pass
    for session in Session.objects.all().iterator():
        if session.get_decoded().get("_auth_user_id") == str(user.pk):
            session.delete()
    print("disabled")
')"
    if [ "${out##*$'\n'}" = disabled ]; then
        printf '\n\033[1;31m  WARNING: the demo user "%s" (made by make run, public password) was\n' \
            "$DEMO_USER" >&2
        printf '  DISABLED: no password, inactive, no rights, its token and sessions removed.\n' >&2
        printf '  Its collections are kept. make run enables it again.\033[0m\n\n' >&2
        note "demo user:" "$DEMO_USER DISABLED just now (it came from make run)"
    fi
}

print_banner() {
    local url="http://$BIND"
    case "$BIND" in unix:*) url="(unix socket ${BIND#unix:}, behind your proxy)" ;; esac
    note "log in:" "$url/accounts/login/   (admin: $url/admin/)"
    note "access log:" "$ACCESS_LOG"
    note "worker log:" "$LOGDIR/celery.log"
    note "database:" "$(redact_url "$DATABASE_URL")  (password: var/secrets/postgres;"
    note "" "back it up: docs/operations.md#backups)"
    {
        printf '\n  copydetect is running in production mode:  %s/\n\n' "$url"
        printf '  %s\n' "${SERVE_NOTES[@]}"
        cat <<MSG

  There is no demo user. Create the first account once (another terminal; it asks for a
  password, and makes a superuser who can add the others at $url/admin/):
      cd $ROOT && $VENV/bin/python manage.py createsuperuser

  Press Ctrl-C (or send SIGTERM) to stop everything this command started.

MSG
    } >&2
}

main() {
    children_init
    trap cleanup EXIT
    # Ctrl-C is the documented way to stop, so it is a normal exit for make.
    trap 'exit 0' INT
    trap 'exit 143' TERM
    bind_in_use "$BIND" && die "$BIND is already in use (another make serve or make run?);" \
        "stop it or choose another: BIND=127.0.0.1:<port> make serve"
    setup_system
    setup_venv
    setup_wordnet
    # Everything from here on (uploads, logs, the instance's files) is private to this user.
    umask 077
    setup_services
    export_app_env
    export_prod_env
    setup_migrate
    disable_demo_user
    log "collecting static files into ${STATIC_ROOT:-$VAR/staticfiles}"
    manage collectstatic --noinput >/dev/null
    # Before the worker starts: documents analysed by an earlier feature model (after an
    # upgrade), and unfinished documents whose message the broker lost, are queued again.
    manage reanalyze --unfinished

    start_worker
    start_gunicorn
    print_banner
    # A child that dies is started again; this fails only when one keeps dying.
    supervise_children
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    main "$@"
fi
