#!/usr/bin/env bash
# Start, stop or inspect the project's own PostgreSQL and Redis (data under var/).
#
#   scripts/services.sh start [postgres|redis ...]   start (idempotent) and create role/db
#   scripts/services.sh stop  [postgres|redis ...]   stop
#   scripts/services.sh status                       exit 0 when both are up
#
# With SERVICES_STARTED_FILE set, `start` appends the name of each service it actually
# started (not the ones already running) so a caller can stop only what it started.
# Both servers are daemons: they keep running after the calling shell exits.

# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PGBIN=""

mark_started() {
    if [ -n "${SERVICES_STARTED_FILE:-}" ]; then echo "$1" >>"$SERVICES_STARTED_FILE"; fi
}

# ---------------------------------------------------------------- PostgreSQL

# As root the data directory belongs to `postgres`, which must be able to reach it:
# give "others" the search (x) bit on every parent directory that lacks it. var/ itself and
# var/log are 0711 (others may pass through, to nothing they can open); the socket directory
# is 0700, the cluster owner's alone.
pg_prepare_dirs() {
    var_private
    pg_socket_dir
    touch "$LOGDIR/postgres.log"
    chmod 600 "$LOGDIR/postgres.log"
    if [ "$IS_ROOT" -eq 1 ]; then
        # Top-down, since a directory is only reachable once all its parents are.
        local dir="" part
        local -a parts
        IFS=/ read -r -a parts <<<"${VAR#/}"
        for part in "${parts[@]}"; do
            dir="$dir/$part"
            if ! runuser -u postgres -- test -x "$dir"; then
                log "letting the postgres user traverse $dir (chmod o+x)"
                chmod o+x "$dir"
            fi
        done
        mkdir -p "$PGDATA"
        if [ "$(stat -c %U "$PGDATA")" != postgres ]; then chown -R postgres: "$PGDATA"; fi
        chown postgres: "$PGSOCKET" "$LOGDIR/postgres.log"
    fi
    chmod 700 "$PGDATA" 2>/dev/null || true
}

# The cluster's OS user: `postgres` as root, else whoever runs the scripts.
pg_os_user() {
    if [ "$IS_ROOT" -eq 1 ]; then echo postgres; else id -un; fi
}

# The socket directory, 0700. The /tmp fallback (deep clones) could have been made by another
# user beforehand to catch the socket: one that is a symbolic link or not ours is refused.
pg_socket_dir() {
    if [ -L "$PGSOCKET" ]; then die "$PGSOCKET is a symbolic link: remove it"; fi
    mkdir -p "$PGSOCKET"
    local owner
    owner="$(stat -c %U "$PGSOCKET")"
    if [ "$owner" != "$(id -un)" ] && [ "$owner" != "$(pg_os_user)" ]; then
        die "$PGSOCKET belongs to $owner, not to this tree's user: remove it"
    fi
    chmod 700 "$PGSOCKET"
}

# var/ and what lies in it, private: 0711 for var/ and var/log (as root the postgres user
# must pass through them), 0600 logs, the media 0600 files in 0700 folders. Older releases
# left var/ 0755 and the originals 0644: those are tightened here, once.
var_private() {
    mkdir -p "$VAR" "$LOGDIR" "$REDIS_DIR"
    chmod 711 "$VAR" "$LOGDIR"
    chmod 700 "$REDIS_DIR"
    find "$LOGDIR" -maxdepth 1 -type f -perm /077 -exec chmod go-rwx {} + 2>/dev/null || true
    local media
    for media in "$VAR/media" "$VAR/test-media"; do
        if [ -d "$media" ] && [ "$(stat -c %a "$media")" != 700 ]; then
            log "making $media private (files 0600, folders 0700)"
            find "$media" -type d -exec chmod 700 {} +
            find "$media" -type f -exec chmod 600 {} +
        fi
    done
}

pg_initdb() {
    [ -f "$PGDATA/PG_VERSION" ] && return 0
    log "initdb $PGDATA"
    local locale=C
    if locale -a 2>/dev/null | grep -qix 'c.utf-\?8'; then locale=C.UTF-8; fi
    mkdir -p "$PGDATA"
    [ "$IS_ROOT" -eq 1 ] && chown postgres: "$PGDATA"
    as_pg "$PGBIN/initdb" -D "$PGDATA" -U postgres -E UTF8 --locale="$locale" \
        --auth-local=peer --auth-host=scram-sha-256 >"$LOGDIR/initdb.log" ||
        die "initdb failed, see $LOGDIR/initdb.log"
    echo "include_if_exists = 'copydetect.conf'" >>"$PGDATA/postgresql.conf"
}

# Rewritten at every start so a changed PGPORT or PG_SHARED_BUFFERS takes effect.
# Durable by default (fsync, synchronous commits, full-page writes): `make run` and
# `make serve` keep real uploads here, and a crash without them can corrupt the cluster.
# PG_DURABLE=0 (what `make test` sets: its data is thrown away) turns the three off.
pg_durability() {
    if [ "${PG_DURABLE:-1}" = 0 ]; then echo off; else echo on; fi
}

pg_write_conf() {
    local durable
    durable="$(pg_durability)"
    cat >"$PGDATA/copydetect.conf" <<CONF
# Written by scripts/services.sh at every start; edit that script, not this file.
listen_addresses = '127.0.0.1'
port = $PGPORT
unix_socket_directories = '$PGSOCKET'
unix_socket_permissions = 0700
password_encryption = scram-sha-256
shared_buffers = $PG_SHARED_BUFFERS
work_mem = 32MB
maintenance_work_mem = 256MB
max_wal_size = 4GB
checkpoint_timeout = 30min
fsync = $durable
synchronous_commit = $durable
full_page_writes = $durable
max_connections = 100
CONF
    [ "$IS_ROOT" -eq 1 ] && chown postgres: "$PGDATA/copydetect.conf"
    return 0
}

pg_running() {
    [ -f "$PGDATA/PG_VERSION" ] && as_pg "$PGBIN/pg_ctl" status -D "$PGDATA" >/dev/null 2>&1
}

pg_running_port() {
    pg_pid_port | cut -d' ' -f2
}

# The superuser over the socket, as the cluster's OS user (peer authentication, pg_hba below).
pg_psql() {
    as_pg "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$PGSOCKET" -p "$PGPORT" -U postgres "$@"
}

# Who may connect (pg_hba.conf, pg_ident.conf), rewritten at every start: the superuser only
# over the socket and only as the cluster's OS user (peer; the scripts' own bootstrap); every
# other connection, on the socket too, with a password (scram-sha-256). Prints "changed" when
# the files changed, so a running server is reloaded (an older release's `trust`).
pg_write_hba() {
    local hba="$PGDATA/pg_hba.conf" ident="$PGDATA/pg_ident.conf" before after
    before="$(cat "$hba" "$ident" 2>/dev/null | sha256sum)"
    cat >"$hba" <<HBA
# Written by scripts/services.sh at every start; edit that script, not this file.
# TYPE  DATABASE  USER      ADDRESS       METHOD
local   all       postgres                peer map=owner
local   all       all                     scram-sha-256
host    all       all       127.0.0.1/32  scram-sha-256
host    all       all       ::1/128       scram-sha-256
HBA
    cat >"$ident" <<IDENT
# Written by scripts/services.sh: the cluster's OS user is its superuser over the socket.
owner   $(pg_os_user)   postgres
IDENT
    chmod 600 "$hba" "$ident"
    [ "$IS_ROOT" -eq 1 ] && chown postgres: "$hba" "$ident"
    after="$(cat "$hba" "$ident" | sha256sum)"
    if [ "$before" != "$after" ]; then echo changed; fi
}

# SQL on stdin, not in argv: the role's password must not show in `ps`.
pg_bootstrap() {
    local exists password
    password="$(instance_secret postgres)"
    exists="$(pg_psql -d postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$DB_USER'")"
    if [ "$exists" != 1 ]; then
        log "creating role $DB_USER"
        pg_psql -d postgres <<<"CREATE ROLE $DB_USER LOGIN CREATEDB PASSWORD '$password'"
    else
        # CREATEDB: pytest-django creates and drops test_$DB_NAME. The password is set again
        # at every start: an older release's role had the fixed password `copydetect`.
        pg_psql -d postgres <<<"ALTER ROLE $DB_USER LOGIN CREATEDB PASSWORD '$password'"
    fi
    # DROP DATABASE ... WITH (FORCE) (benchmark and test databases) must also end the
    # autovacuum worker that may be busy in a freshly loaded database; without this role
    # a non-superuser gets "must be a member of ... pg_signal_backend".
    pg_psql -d postgres -c "GRANT pg_signal_backend TO $DB_USER"
    # The benchmark runs CHECKPOINT before its timings (docs/benchmarks.md).
    pg_psql -d postgres -c "GRANT pg_checkpoint TO $DB_USER" 2>/dev/null || true
    exists="$(pg_psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")"
    if [ "$exists" != 1 ]; then
        log "creating database $DB_NAME"
        pg_psql -d postgres -c "CREATE DATABASE $DB_NAME OWNER $DB_USER"
    fi
}

# A cluster started without durability (by `make test`) and still running is switched to
# durable when a durable start finds it (the three settings take effect on reload). Never
# the other way: `make test` beside a running `make run` leaves its cluster durable.
pg_make_durable() {
    [ "$(pg_durability)" = on ] || return 0
    [ "$(pg_psql -d postgres -tAc 'SHOW fsync')" = off ] || return 0
    log "PostgreSQL was started without fsync (make test); making it durable (reload)"
    pg_write_conf
    as_pg "$PGBIN/pg_ctl" reload -D "$PGDATA" >/dev/null ||
        die "could not reload PostgreSQL, see $LOGDIR/postgres.log"
    # What was written without fsync may still sit in the OS cache: flush it now, as
    # PostgreSQL's documentation advises when fsync is turned back on.
    sync
}

# "15.20" from "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)" or from the server's
# own "15.20 (Debian 15.20-0+deb12u1)": the release a binary or a running server is.
pg_release_of() {
    sed -n 's/^[^0-9]*\([0-9][0-9.]*\).*/\1/p' | head -n 1
}

# A package upgrade (apt-get, e.g. `make setup` pulling a newer postgresql-15 in with the
# server headers, or unattended upgrades) replaces the server's files under a running server:
# its backends then fail to load PL/pgSQL or the copydetect extension ("undefined symbol"),
# and every trigger and function of the schema with them. A running server of an older minor
# release of the data directory's own major version is restarted (fast shutdown: open
# transactions are rolled back); another major version installed beside it is not its binary.
pg_restart_if_upgraded() {
    local running installed major
    running="$(pg_psql -d postgres -tAc 'SHOW server_version' | pg_release_of)" || return 0
    installed="$("$PGBIN/postgres" --version | pg_release_of)" || return 0
    major="$(cat "$PGDATA/PG_VERSION" 2>/dev/null)" || return 0
    [ -n "$running" ] && [ "${installed%%.*}" = "$major" ] && [ "${running%%.*}" = "$major" ] ||
        return 0
    [ "$running" != "$installed" ] &&
        [ "$(printf '%s\n%s\n' "$running" "$installed" | sort -V | head -n 1)" = "$running" ] ||
        return 0
    log "PostgreSQL $running is running but $installed is installed (upgraded); restarting it"
    as_pg "$PGBIN/pg_ctl" restart -D "$PGDATA" -m fast -w -t 60 -l "$LOGDIR/postgres.log" \
        >/dev/null || die "PostgreSQL did not restart, see $LOGDIR/postgres.log"
}

pg_start() {
    PGBIN="$(pg_bindir)"
    pg_prepare_dirs
    pg_initdb
    if pg_running; then
        local port
        port="$(pg_running_port)"
        [ "$port" = "$PGPORT" ] || die "PostgreSQL of $PGDATA already runs on port $port," \
            "not $PGPORT: stop it (scripts/services.sh stop postgres) or set PGPORT=$port"
        log "PostgreSQL already running on 127.0.0.1:$PGPORT ($PGDATA)"
        pg_restart_if_upgraded
        pg_make_durable
        if [ "$(pg_write_hba)" = changed ]; then
            log "PostgreSQL: password authentication on, also on the socket (reload)"
            as_pg "$PGBIN/pg_ctl" reload -D "$PGDATA" >/dev/null ||
                die "could not reload PostgreSQL, see $LOGDIR/postgres.log"
        fi
    else
        port_in_use "$PGPORT" && die "port $PGPORT is used by another program" \
            "(another clone's services?); choose a free one: PGPORT=<port> make ..."
        pg_write_conf
        pg_write_hba >/dev/null
        log "starting PostgreSQL on 127.0.0.1:$PGPORT ($PGDATA)"
        as_pg "$PGBIN/pg_ctl" start -D "$PGDATA" -l "$LOGDIR/postgres.log" -w -t 60 \
            >/dev/null || die "PostgreSQL did not start, see $LOGDIR/postgres.log"
        mark_started postgres
    fi
    pg_bootstrap
}

pg_stop() {
    PGBIN="$(pg_bindir)"
    if pg_running; then
        log "stopping PostgreSQL ($PGDATA)"
        as_pg "$PGBIN/pg_ctl" stop -D "$PGDATA" -m fast -w -t 60 >/dev/null
    else
        log "PostgreSQL of $PGDATA is not running"
    fi
}

pg_status() {
    PGBIN="$(pg_bindir)"
    if pg_running; then
        echo "postgres: running on 127.0.0.1:$(pg_running_port) (data $PGDATA)"
    else
        echo "postgres: stopped (data $PGDATA)"
        return 1
    fi
}

# --------------------------------------------------------------------- Redis

# redis-cli with this install's password (from the environment, never in argv).
redis_cli() {
    REDISCLI_AUTH="$(instance_secret redis)" redis-cli --no-auth-warning -h 127.0.0.1 \
        -p "$REDIS_PORT" "$@"
}

# The server's settings, in a 0600 file (the password must not show in `ps`), rewritten at
# every start. Append-only file: the queued tasks (documents waiting to be processed) survive
# a restart of Redis, e.g. Ctrl-C of `make run` with uploads still waiting.
redis_write_conf() {
    (
        umask 077
        cat >"$REDIS_DIR/redis.conf" <<CONF
# Written by scripts/services.sh at every start; edit that script, not this file.
port $REDIS_PORT
bind 127.0.0.1
dir $REDIS_DIR
daemonize yes
pidfile $REDIS_PIDFILE
logfile $LOGDIR/redis.log
save ""
appendonly yes
appendfsync everysec
requirepass $(instance_secret redis)
CONF
    )
}

# A Redis of an older release answers without a password: it gets one now, live.
redis_require_password() {
    if redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; then
        log "Redis answered without a password: setting this install's password (var/secrets)"
        instance_secret redis | redis-cli -h 127.0.0.1 -p "$REDIS_PORT" -x config set \
            requirepass >/dev/null
    fi
    redis_cli ping 2>/dev/null | grep -q PONG ||
        die "Redis on port $REDIS_PORT refuses this install's password" \
            "(var/secrets/redis): stop it (scripts/services.sh stop redis) and start again"
}

redis_start() {
    var_private
    if redis_pid >/dev/null; then
        local port
        port="$(redis_running_port)"
        [ "$port" = "$REDIS_PORT" ] || die "Redis of $REDIS_DIR already runs on port $port," \
            "not $REDIS_PORT: stop it (scripts/services.sh stop redis) or set REDIS_PORT=$port"
        log "Redis already running on 127.0.0.1:$REDIS_PORT ($REDIS_DIR)"
        redis_require_password
        redis_write_conf
        return 0
    fi
    port_in_use "$REDIS_PORT" && die "port $REDIS_PORT is used by another program;" \
        "choose a free one: REDIS_PORT=<port> make ..."
    command -v redis-server >/dev/null || die "redis-server missing (run: make setup)"
    log "starting Redis on 127.0.0.1:$REDIS_PORT ($REDIS_DIR)"
    redis_write_conf
    touch "$LOGDIR/redis.log"
    chmod 600 "$LOGDIR/redis.log"
    (umask 077 && redis-server "$REDIS_DIR/redis.conf" >/dev/null)
    for _ in $(seq 1 50); do
        if redis_cli ping 2>/dev/null | grep -q PONG; then
            mark_started redis
            return 0
        fi
        sleep 0.2
    done
    die "Redis did not answer on port $REDIS_PORT, see $LOGDIR/redis.log"
}

redis_stop() {
    local pid
    if pid="$(redis_pid)"; then
        log "stopping Redis ($REDIS_DIR)"
        kill "$pid"
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || return 0
            sleep 0.2
        done
        die "Redis (pid $pid) did not stop"
    fi
    log "Redis of $REDIS_DIR is not running"
}

redis_status() {
    if redis_pid >/dev/null; then
        echo "redis: running on 127.0.0.1:$(redis_running_port) (data $REDIS_DIR)"
    else
        echo "redis: stopped (data $REDIS_DIR)"
        return 1
    fi
}

# ---------------------------------------------------------------------- main

main() {
    local action="${1:-status}"
    shift || true
    local services=("$@")
    [ "${#services[@]}" -gt 0 ] || services=(postgres redis)
    local rc=0 svc
    if [ "$action" = start ]; then var_private; fi
    for svc in "${services[@]}"; do
        case "$svc" in
            postgres) prefix=pg ;;
            redis) prefix=redis ;;
            *) die "unknown service $svc (postgres|redis)" ;;
        esac
        case "$action" in
            start | stop) "${prefix}_$action" ;;
            status) "${prefix}_status" || rc=1 ;;
            *) die "usage: $0 start|stop|status [postgres|redis ...]" ;;
        esac
    done
    if [ "$action" = start ]; then write_instance_env; fi
    return "$rc"
}

main "$@"
