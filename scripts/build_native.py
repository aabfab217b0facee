"""Build the C extension detection/_lisfeatures.c in place (next to its source).

    .venv/bin/python scripts/build_native.py [--force]

Run by scripts/setup.sh (``setup_venv``, so by ``make run``, ``make serve`` and ``make test``)
with the virtualenv's interpreter.  The compiler and flags are the interpreter's own
(``sysconfig``: what setuptools would use), so nothing beyond build-essential and python3-dev
is needed.  A stamp next to the module records what it was built from (source, this script,
interpreter); the build is skipped while the stamp matches.  The module is written to a
temporary name and renamed, so a process that has the old one loaded is not disturbed.
Without the module, detection.vocabulary falls back to its numpy implementation.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "detection" / "_lisfeatures.c"


def target() -> Path:
    return SOURCE.with_name("_lisfeatures" + sysconfig.get_config_var("EXT_SUFFIX"))


def fingerprint() -> str:
    digest = hashlib.sha256()
    for part in (SOURCE.read_bytes(), Path(__file__).read_bytes(), sys.version.encode()):
        digest.update(hashlib.sha256(part).digest())
    digest.update(sysconfig.get_paths()["include"].encode())
    return digest.hexdigest()


def config(name: str) -> list[str]:
    return shlex.split(sysconfig.get_config_var(name) or "")


def build(module: Path) -> None:
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        sys.exit(f"build_native: {include}/Python.h missing (install python3-dev)")
    with tempfile.TemporaryDirectory(prefix="lisfeatures-") as scratch:
        obj = Path(scratch) / "_lisfeatures.o"
        built = Path(scratch) / module.name
        compile_ = [
            *config("CC"),
            *config("CFLAGS"),
            *config("CCSHARED"),
            f"-I{include}",
            "-c",
            str(SOURCE),
            "-o",
            str(obj),
        ]
        link = [*config("LDSHARED"), str(obj), "-o", str(built)]
        for command in (compile_, link):
            done = subprocess.run(command, check=False)
            if done.returncode:
                sys.exit(f"build_native: failed ({done.returncode}): {shlex.join(command)}")
        partial = module.with_name(module.name + f".{os.getpid()}.tmp")
        partial.write_bytes(built.read_bytes())
        partial.chmod(0o755)
        os.replace(partial, module)


def main(argv: list[str]) -> int:
    module = target()
    stamp = module.with_name(module.name + ".sha256")
    want = fingerprint()
    if "--force" not in argv and module.is_file() and stamp.is_file():
        if stamp.read_text().strip() == want:
            print(f"build_native: {module.relative_to(ROOT)} up to date")
            return 0
    build(module)
    stamp.write_text(want + "\n")
    print(f"build_native: built {module.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
