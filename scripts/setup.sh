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

# The Debian packages.
setup_system() {
    setup_packages
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
