# shellcheck shell=bash
# The long-running children of `make run` and `make serve` (worker, web server) and their
# shutdown. Source it after setup.sh; do not execute it.
#
#   children_init                       at the start of main: record the services we start
#   start_child NAME LOGFILE|- CMD...   start CMD in its own session, remember its pid
#   cleanup                             (the EXIT trap) stop every child, then the
#                                       PostgreSQL/Redis servers this invocation started

CHILD_PIDS=()
STARTED_FILE=""

# services.sh appends each service it really starts to this file (not those already up), so
# cleanup stops only what this invocation started.
children_init() {
    STARTED_FILE="$(mktemp)"
    export SERVICES_STARTED_FILE="$STARTED_FILE"
}

# Each child runs in its own session (setsid), so stopping it means signalling its process
# group: that also reaches the runserver autoreloader's child, gunicorn's workers and
# Celery's pool processes.
stop_children() {
    local pid
    for pid in "${CHILD_PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
    for _ in $(seq 1 100); do
        local alive=0
        for pid in "${CHILD_PIDS[@]}"; do kill -0 -- "-$pid" 2>/dev/null && alive=1; done
        [ "$alive" -eq 0 ] && return 0
        sleep 0.1
    done
    for pid in "${CHILD_PIDS[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
}

cleanup() {
    trap - EXIT INT TERM
    echo
    log "stopping"
    stop_children
    local svc
    # Reverse order: Redis (if started) before PostgreSQL.
    for svc in $(tac "$STARTED_FILE" 2>/dev/null); do "$ROOT/scripts/services.sh" stop "$svc"; done
    rm -f "$STARTED_FILE"
    log "stopped"
}

start_child() {  # start_child NAME LOGFILE|- COMMAND...
    local name="$1" logfile="$2"
    shift 2
    if [ "$logfile" = - ]; then
        setsid "$@" &
    else
        setsid "$@" >>"$logfile" 2>&1 &
    fi
    CHILD_PIDS+=("$!")
    log "$name started (pid $!)"
}
