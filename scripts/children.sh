# shellcheck shell=bash
# The long-running children of `make run` and `make serve` (worker, web server), their
# supervision and their shutdown. Source it after setup.sh; do not execute it.
#
#   children_init                       at the start of main: record the services we start
#   start_child NAME LOGFILE|- CMD...   start CMD in its own session, remember how to restart it
#                                       (CHILD_BEFORE, when set, is run before every start)
#   supervise_children                  wait; restart a child that ends (back-off); returns
#                                       (status 1) only when one keeps dying
#   cleanup                             (the EXIT trap) stop every child, then the
#                                       PostgreSQL/Redis servers this invocation started

CHILD_PIDS=()
CHILD_NAMES=()
CHILD_LOGS=()
CHILD_COMMANDS=()   # each quoted with printf %q, for eval at a restart
CHILD_BEFORES=()
CHILD_STARTS=()     # start time (epoch seconds)
CHILD_QUICK=()      # deaths in a row that came soon after their start
CHILD_BEFORE=""
STARTED_FILE=""

# A child that ends within QUICK_DEATH_SECONDS of its start counts as a quick death; after
# RESTART_LIMIT quick deaths in a row it is not started again and everything stops (a
# broken set-up, not a crash). The wait before a restart doubles from 1 s up to 30 s.
QUICK_DEATH_SECONDS="${QUICK_DEATH_SECONDS:-60}"
RESTART_LIMIT="${RESTART_LIMIT:-10}"
RESTART_MAX_DELAY=30

# services.sh appends each service it really starts to this file (not those already up), so
# cleanup stops only what this invocation started.
children_init() {
    STARTED_FILE="$(mktemp)"
    export SERVICES_STARTED_FILE="$STARTED_FILE"
}

# Each child runs in its own session (setsid), so stopping it means signalling its process
# group: that also reaches gunicorn's workers and Celery's pool processes.
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
    CHILD_NAMES+=("$name")
    CHILD_LOGS+=("$logfile")
    CHILD_COMMANDS+=("$(printf '%q ' "$@")")
    CHILD_BEFORES+=("$CHILD_BEFORE")
    CHILD_QUICK+=(0)
    CHILD_PIDS+=("")
    CHILD_STARTS+=(0)
    spawn_child "$((${#CHILD_PIDS[@]} - 1))"
    log "$name started (pid ${CHILD_PIDS[-1]})"
}

spawn_child() {  # spawn_child INDEX
    local i="$1"
    if [ -n "${CHILD_BEFORES[$i]}" ]; then eval "${CHILD_BEFORES[$i]}" || true; fi
    if [ "${CHILD_LOGS[$i]}" = - ]; then
        eval "setsid ${CHILD_COMMANDS[$i]} &"
    else
        eval "setsid ${CHILD_COMMANDS[$i]} >>\"\${CHILD_LOGS[\$i]}\" 2>&1 &"
    fi
    CHILD_PIDS[i]="$!"
    CHILD_STARTS[i]="$(date +%s)"
}

# say INDEX MESSAGE...: on the console and in the child's log.
say() {
    local i="$1"
    shift
    log "$*"
    if [ "${CHILD_LOGS[$i]}" != - ]; then
        printf '%s [supervisor] %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S')" "$*" >>"${CHILD_LOGS[$i]}"
    fi
}

# Returns 1 when the child is given up.
restart_child() {  # restart_child INDEX WAIT_STATUS
    local i="$1" status="$2" lived how delay
    lived=$(($(date +%s) - CHILD_STARTS[i]))
    # What is left of its process group (a killed worker's pool processes) goes too: a pool
    # process still running a task beside the new worker would do the work twice.
    kill -KILL -- "-${CHILD_PIDS[$i]}" 2>/dev/null || true
    if [ "$status" -gt 128 ]; then how="was killed (signal $((status - 128)))"; else
        how="exited with status $status"; fi
    if [ "$lived" -lt "$QUICK_DEATH_SECONDS" ]; then
        CHILD_QUICK[i]=$((CHILD_QUICK[i] + 1))
    else
        CHILD_QUICK[i]=1
    fi
    if [ "${CHILD_QUICK[$i]}" -ge "$RESTART_LIMIT" ]; then
        say "$i" "${CHILD_NAMES[$i]} $how after ${lived}s; it died ${CHILD_QUICK[$i]} times" \
            "in a row within ${QUICK_DEATH_SECONDS}s of starting: giving up, stopping everything"
        return 1
    fi
    delay=$((1 << (CHILD_QUICK[i] - 1)))
    [ "$delay" -le "$RESTART_MAX_DELAY" ] || delay="$RESTART_MAX_DELAY"
    say "$i" "${CHILD_NAMES[$i]} (pid ${CHILD_PIDS[$i]}) $how after ${lived}s;" \
        "restarting it in ${delay}s"
    # In the background so Ctrl-C during the wait stops at once.
    sleep "$delay" &
    wait "$!"
    spawn_child "$i"
    say "$i" "${CHILD_NAMES[$i]} restarted (pid ${CHILD_PIDS[$i]})"
}

# Polls once a second rather than `wait -n`: a child that ended before `wait -n` was called
# is no job of the shell any more and would never be noticed. Bash reaps its children as they
# end, so a dead child fails `kill -0`; `wait PID` then gives its exit status.
supervise_children() {
    local i status
    while true; do
        # In the background so Ctrl-C stops at once.
        sleep 1 &
        wait "$!"
        for i in "${!CHILD_PIDS[@]}"; do
            kill -0 "${CHILD_PIDS[$i]}" 2>/dev/null && continue
            status=0
            wait "${CHILD_PIDS[$i]}" 2>/dev/null || status=$?
            restart_child "$i" "$status" || return 1
        done
    done
}

# The Celery worker, supervised. Before each start the messages that a dead worker had taken
# and not acknowledged go back on their queues (core/broker.py): its documents are processed
# again at once, not after the broker's visibility timeout. This instance runs one worker, so
# none of them belongs to a live one.
start_worker() {
    mkdir -p "$LOGDIR"
    CHILD_BEFORE=restore_unacked
    log "Celery worker log: $LOGDIR/celery.log"
    start_child "Celery worker" "$LOGDIR/celery.log" \
        "$VENV/bin/celery" -A config.celery worker --loglevel=INFO \
        --concurrency="${CELERY_CONCURRENCY:-2}" --hostname="copydetect@%h"
    CHILD_BEFORE=""
}

restore_unacked() {
    local out
    if ! out="$("$VENV/bin/python" -m core.broker restore-unacked 2>&1)"; then
        log "could not put unacknowledged messages back: ${out##*$'\n'}"
        return 0
    fi
    case "$out" in 0\ *) ;; *) log "$out" ;; esac
}
