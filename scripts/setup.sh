#!/usr/bin/env bash
# Idempotent set-up shared by `make run` and `make test`.
#
#   scripts/setup.sh [system] [venv] [wordnet] [services] [migrate]   (default: all but migrate)
#
# Sourced by run.sh/test.sh for the functions; executed for the individual steps.

# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# Debian packages the product needs at run and test time (and to build wheels if a pinned
# package has none for this Python). wordnet-sense-index: NLTK's reader opens index.sense.
# Fonts are only Recommends of chromium (not installed with --no-install-recommends); the
# CJK one lets headless Chromium lay out Chinese text instead of empty boxes. The evidence
# report's PDF (WeasyPrint) needs Pango and fonts-noto-cjk for its Chinese text; its tests
# read the PDF back with poppler-utils' pdftotext. libb2-dev: BLAKE2b for the C extension of
# the feature extraction (setup.py).
SYSTEM_PACKAGES=(make build-essential python3 python3-venv python3-dev postgresql redis-server redis-tools wordnet-base wordnet-sense-index chromium chromium-driver
    fonts-liberation fonts-wqy-zenhei libpango-1.0-0 libpangoft2-1.0-0 fonts-noto-cjk poppler-utils libb2-dev)

VENV="$ROOT/.venv"
VENV_STAMP="$VENV/.requirements.sha256"

package_installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

# The Debian packages, then the PostgreSQL extension built from this tree.
setup_system() {
    setup_packages
    setup_pgext
}

# apt-get update runs once, and only when something is missing.
setup_packages() {
    command -v dpkg-query >/dev/null || die "not a Debian system: install ${SYSTEM_PACKAGES[*]}"
    local missing=() pkg
    for pkg in "${SYSTEM_PACKAGES[@]}"; do
        package_installed "$pkg" || missing+=("$pkg")
    done
    if [ "${#missing[@]}" -eq 0 ]; then
        log "system packages present"
        return 0
    fi
    if [ "$IS_ROOT" -eq 0 ] && ! command -v sudo >/dev/null; then
        die "missing Debian packages (${missing[*]}) and no sudo: install them as root"
    fi
    log "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends "${missing[@]}"
}

# documents/pgext, the copydetect PostgreSQL extension (the lookup's postings packed into one
# bytea; docs/architecture.md), built with PGXS for the server services.sh runs and installed
# into its directories. It is optional: without root or sudo, without the server headers
# (Debian's postgresql-server-dev-all, installed here when missing), or with
# COPYDETECT_PGEXT=off, this says why and goes on, and lookups aggregate with array_agg (the
# same results, ~1 ms slower). A stamp beside the installed control file records what was
# built from (its four source files and the server version); nothing is done while it
# matches. The build runs in a scratch copy of the sources, so the tree gets no objects.
PGEXT_SOURCES=(Makefile copydetect.c copydetect.control copydetect--1.0.sql)

setup_pgext() {
    if [ "${COPYDETECT_PGEXT:-on}" = off ]; then
        log "copydetect extension not installed (COPYDETECT_PGEXT=off)"
        return 0
    fi
    if [ "$IS_ROOT" -eq 0 ] && ! sudo -n true 2>/dev/null; then
        log "not root and sudo asks for a password: the copydetect extension is not installed" \
            "(run 'sudo -v' first to install it)"
        return 0
    fi
    local pg_config
    pg_config="$(pg_bindir)/pg_config"
    # pg_config and PGXS come with the client package; the server headers do not.
    pgext_headers() { [ -f "$("$pg_config" --includedir-server 2>/dev/null)/postgres.h" ]; }
    if ! pgext_headers; then
        log "installing postgresql-server-dev-all (headers to build documents/pgext)"
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends postgresql-server-dev-all ||
            { as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q &&
                as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                    --no-install-recommends postgresql-server-dev-all; } || true
    fi
    if ! pgext_headers; then
        log "no server headers for $pg_config: the copydetect extension is not built" \
            "(lookups use array_agg)"
        return 0
    fi
    local sharedir libdir want have="" stamp scratch file
    sharedir="$("$pg_config" --sharedir)/extension"
    libdir="$("$pg_config" --pkglibdir)"
    stamp="$sharedir/copydetect.sha256"
    want="$( (for file in "${PGEXT_SOURCES[@]}"; do cat "$ROOT/documents/pgext/$file"; done
        "$pg_config" --version) | sha256sum | cut -d' ' -f1)"
    [ -f "$stamp" ] && have="$(cat "$stamp")"
    if [ "$want" = "$have" ] && [ -f "$libdir/copydetect.so" ]; then
        log "copydetect extension up to date"
        return 0
    fi
    log "building the copydetect extension (documents/pgext) for $("$pg_config" --version)"
    scratch="$(mktemp -d)"
    for file in "${PGEXT_SOURCES[@]}"; do cp "$ROOT/documents/pgext/$file" "$scratch/"; done
    # with_llvm=no: no JIT bitcode to build and install (the extension has nothing to inline).
    if make -s -C "$scratch" with_llvm=no PG_CONFIG="$pg_config" >/dev/null &&
        as_root make -s -C "$scratch" with_llvm=no PG_CONFIG="$pg_config" install >/dev/null &&
        echo "$want" | as_root tee "$stamp" >/dev/null; then
        log "copydetect extension installed into $libdir"
    else
        log "building or installing documents/pgext failed (above): lookups use array_agg"
    fi
    rm -rf "$scratch"
}

# The interpreter for a new virtualenv: python3 if it is 3.11 or newer.
pick_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3 python3.11 /usr/bin/python3; do
        [ -n "$candidate" ] && command -v "$candidate" >/dev/null || continue
        if "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' \
            2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    die "no Python >= 3.11 with the venv module (install python3 and python3-venv)"
}

# pip runs only when requirements.txt differs from what the stamp records; the C extension
# of the feature extraction is then (re)built in place when its source changed.
setup_venv() {
    setup_requirements
    setup_native
}

setup_requirements() {
    if ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        local python
        python="$(pick_python)"
        log "creating virtualenv $VENV with $python"
        rm -rf "$VENV"
        "$python" -m venv "$VENV"
    fi
    local want have=""
    want="$(sha256sum "$ROOT/requirements.txt" | cut -d' ' -f1)"
    [ -f "$VENV_STAMP" ] && have="$(cat "$VENV_STAMP")"
    if [ "$want" = "$have" ]; then
        log "virtualenv up to date"
        return 0
    fi
    log "installing requirements.txt into $VENV (a few minutes the first time)"
    "$VENV/bin/python" -m pip install --disable-pip-version-check -q -r "$ROOT/requirements.txt"
    echo "$want" >"$VENV_STAMP"
}

# detection/_lisfeatures.c -> detection/_lisfeatures*.so by setuptools (setup.py; needs
# build-essential, python3-dev, libb2-dev); setuptools skips it while the module is newer
# than its source. Intermediate files go to var/build.
setup_native() {
    (cd "$ROOT" && "$VENV/bin/python" setup.py -q build_ext --inplace \
        --build-temp var/build --build-lib var/build/lib) ||
        die "building detection/_lisfeatures.c failed (see the compiler output above)"
}

setup_wordnet() {
    "$ROOT/scripts/wordnet.sh"
}

# Appends the services it started to SERVICES_STARTED_FILE (see services.sh).
setup_services() {
    resolve_ports
    "$ROOT/scripts/services.sh" start
}

manage() {
    "$VENV/bin/python" "$ROOT/manage.py" "$@"
}

setup_migrate() {
    [ -f "$ROOT/manage.py" ] || die "manage.py missing: the Django project is not in this tree yet"
    log "migrating database $DB_NAME"
    manage migrate --noinput
}

# A superuser for the demo, created or its password reset on every run so the login that
# run.sh prints always works (createsuperuser --noinput would fail on the second run).
DEMO_USER="${DEMO_USER:-demo}"
DEMO_PASSWORD="${DEMO_PASSWORD:-demo-password}"

setup_demo_user() {
    DEMO_USER="$DEMO_USER" DEMO_PASSWORD="$DEMO_PASSWORD" manage shell -c '
import os
from django.contrib.auth import get_user_model
User = get_user_model()
user, created = User.objects.get_or_create(
    **{User.USERNAME_FIELD: os.environ["DEMO_USER"]},
    defaults={"email": "demo@example.invalid"},
)
user.is_staff = user.is_superuser = user.is_active = True
user.set_password(os.environ["DEMO_PASSWORD"])
user.save()
print(("created" if created else "updated") + " demo user " + os.environ["DEMO_USER"])
'
}

setup_main() {
    local steps=("$@")
    [ "${#steps[@]}" -gt 0 ] || steps=(system venv wordnet services)
    local step
    for step in "${steps[@]}"; do
        case "$step" in
            system | venv | wordnet | services) "setup_$step" ;;
            migrate)
                export_app_env
                export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-config.settings.dev}"
                setup_migrate
                ;;
            *) die "unknown step $step (system venv wordnet services migrate)" ;;
        esac
    done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    setup_main "$@"
fi
