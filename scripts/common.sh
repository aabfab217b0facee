# shellcheck shell=bash disable=SC2034  # the variables are used by the sourcing scripts
# Shared settings for the set-up and service scripts. Source it; do not execute it.
#
# Every path is computed from the repository root so a fresh clone anywhere works. Ports:
# PGPORT / REDIS_PORT from the environment are used as given. Unset, they are the port this
# tree's server already runs on, else the default (54329 / 63790), else - when another
# program (e.g. another clone's servers) holds the default - the next free port. The
# result is exported, so every script and the app see the same ports.

set -o errexit -o nounset -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VAR="$ROOT/var"
PGDATA="$VAR/postgres"
LOGDIR="$VAR/log"
REDIS_DIR="$VAR/redis"

DEFAULT_PGPORT=54329
DEFAULT_REDIS_PORT=63790
REDIS_PIDFILE="$REDIS_DIR/redis.pid"
# A quarter of the RAM (PostgreSQL's usual advice), 128MB to 8GB: the posting index's btrees
# must stay in shared buffers for lookups to be fast (at 512MB a 22M-posting archive's
# lookups re-read ~800 pages each from the OS cache, ~9 ms; docs/benchmarks.md).
default_shared_buffers() {
    local kb
    kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
    local mb=$(( ${kb:-0} / 4096 ))
    [ "$mb" -lt 128 ] && mb=128
    [ "$mb" -gt 8192 ] && mb=8192
    echo "${mb}MB"
}
PG_SHARED_BUFFERS="${PG_SHARED_BUFFERS:-$(default_shared_buffers)}"
DB_NAME=copydetect
DB_USER=copydetect
# Per-install random passwords of the database role and of Redis (instance_secret), and the
# instance's environment file that the settings read (core/instance.py); all mode 0600.
SECRETS_DIR="$VAR/secrets"
INSTANCE_ENV="$VAR/instance.env"

# A unix socket path is limited to ~107 bytes; deep clones fall back to a /tmp directory
# named after the repository path so two clones never share one.
PGSOCKET="$VAR/run"
if [ "${#PGSOCKET}" -gt 80 ]; then
    PGSOCKET="/tmp/copydetect-pg-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)"
fi

IS_ROOT=0
[ "$(id -u)" -eq 0 ] && IS_ROOT=1

log() { printf '\033[1m==>\033[0m %s\n' "$*" >&2; }
die() { printf '\033[31mERROR:\033[0m %s\n' "$*" >&2; exit 1; }

# Run a command with root rights: directly when root, else through sudo.
as_root() {
    if [ "$IS_ROOT" -eq 1 ]; then "$@"; else sudo "$@"; fi
}

# PostgreSQL refuses to run as root, so as root the server runs as the `postgres` system
# user (created by the Debian package); an ordinary user runs it as themselves.
as_pg() {
    if [ "$IS_ROOT" -eq 1 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# The newest installed server version; Debian puts each under /usr/lib/postgresql/<major>.
pg_bindir() {
    local major
    major="$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1)"
    [ -n "$major" ] && [ -x "/usr/lib/postgresql/$major/bin/pg_ctl" ] ||
        die "no PostgreSQL server under /usr/lib/postgresql (run: make setup)"
    printf '/usr/lib/postgresql/%s/bin' "$major"
}

port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# instance_secret NAME: the password in var/secrets/NAME, made once (48 hex digits: safe in a
# URL and a config file unquoted). The directory is 0700 and the file 0600: only this tree's
# OS user reads them.
instance_secret() {
    local file="$SECRETS_DIR/$1"
    if [ ! -s "$file" ]; then
        (
            umask 077
            mkdir -p "$SECRETS_DIR"
            od -An -N24 -tx1 /dev/urandom | tr -d ' \n' >"$file.tmp"
            mv "$file.tmp" "$file"
        )
    fi
    chmod 700 "$SECRETS_DIR"
    chmod 600 "$file"
    cat "$file"
}

# The environment Django, Celery and pytest read (the settings contract).
export_app_env() {
    export DATABASE_URL="postgres://$DB_USER:$(instance_secret postgres)@127.0.0.1:$PGPORT/$DB_NAME"
    export CELERY_BROKER_URL="redis://:$(instance_secret redis)@127.0.0.1:$REDIS_PORT/0"
    export NLTK_DATA="$VAR/nltk_data"
    export WORDNET="$VAR/nltk_data/corpora/wordnet"
    export CHROMIUM_BIN="${CHROMIUM_BIN:-/usr/bin/chromium}"
    export CHROMEDRIVER_PATH="${CHROMEDRIVER_PATH:-/usr/bin/chromedriver}"
    # Selenium Manager must never try to download a browser or driver.
    export SE_OFFLINE=true
    export PYTHONUNBUFFERED=1
}

# var/instance.env: what a `manage.py` command run by hand needs to reach this instance (the
# settings read it for the variables not set; core/instance.py). Written when the services
# start, mode 0600.
write_instance_env() {
    export_app_env
    (
        umask 077
        cat >"$INSTANCE_ENV.tmp" <<ENV
# Written by scripts/services.sh when the services start: this tree's PostgreSQL and Redis.
DATABASE_URL=$DATABASE_URL
CELERY_BROKER_URL=$CELERY_BROKER_URL
NLTK_DATA=$NLTK_DATA
WORDNET=$WORDNET
ENV
        mv "$INSTANCE_ENV.tmp" "$INSTANCE_ENV"
    )
}

# A URL with its password replaced by *** (for messages).
redact_url() {
    sed 's#://\([^:/@]*\):[^@]*@#://\1:***@#' <<<"$1"
}

# --------------------------------------------------------------- port resolution

# PID and port of this tree's PostgreSQL from postmaster.pid (lines 1 and 4), if it runs.
pg_pid_port() {
    local pid port
    { read -r pid && read -r _ && read -r _ && read -r port; } \
        2>/dev/null <"$PGDATA/postmaster.pid" || return 1
    grep -q postgres "/proc/$pid/cmdline" 2>/dev/null || return 1
    echo "$pid $port"
}

redis_pid() {
    local pid
    pid="$(cat "$REDIS_PIDFILE" 2>/dev/null)" || return 1
    [ -n "$pid" ] && grep -q redis-server "/proc/$pid/cmdline" 2>/dev/null || return 1
    echo "$pid"
}

# redis-server names itself "redis-server 127.0.0.1:<port>" in its command line.
redis_running_port() {
    local pid
    pid="$(redis_pid)" || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -o ':[0-9]*' | head -n 1 | tr -d :
}

# pick_port NAME DEFAULT RUNNING_PORT
pick_port() {
    local name="$1" port="$2" running="$3" tries=0
    if [ -n "$running" ]; then echo "$running"; return 0; fi
    while port_in_use "$port"; do
        tries=$((tries + 1))
        [ "$tries" -le 100 ] || die "no free port for $name near $2"
        port=$((port + 1))
    done
    [ "$port" = "$2" ] || log "port $2 is taken by another program; $name uses $port"
    echo "$port"
}

# Ports not given by the user are chosen here (PORTS_CHOSEN lists which) and chosen again by
# `resolve_ports` right before the servers start: the set-up before that (apt, pip) can take
# minutes, long enough for another program to take a port that was free at first.
resolve_ports() {
    local running
    if [ -z "${PGPORT:-}" ] || [[ " ${PORTS_CHOSEN:-} " == *" pg "* ]]; then
        running="$(pg_pid_port | cut -d' ' -f2)" || running=""
        PGPORT="$(pick_port PostgreSQL "$DEFAULT_PGPORT" "$running")"
        [[ " ${PORTS_CHOSEN:-} " == *" pg "* ]] || PORTS_CHOSEN="${PORTS_CHOSEN:-} pg"
    fi
    if [ -z "${REDIS_PORT:-}" ] || [[ " ${PORTS_CHOSEN:-} " == *" redis "* ]]; then
        running="$(redis_running_port)" || running=""
        REDIS_PORT="$(pick_port Redis "$DEFAULT_REDIS_PORT" "$running")"
        [[ " ${PORTS_CHOSEN:-} " == *" redis "* ]] || PORTS_CHOSEN="${PORTS_CHOSEN:-} redis"
    fi
    export PGPORT REDIS_PORT PORTS_CHOSEN
}

# Child scripts inherit the exported ports as they are (a `stop` must not move them).
if [ -z "${PGPORT:-}" ] || [ -z "${REDIS_PORT:-}" ]; then resolve_ports; fi
