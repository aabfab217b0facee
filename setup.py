"""The C extension detection._lisfeatures (the metadata is in pyproject.toml).

    .venv/bin/python setup.py build_ext --inplace --build-temp var/build

scripts/setup.sh runs this; setuptools rebuilds only when the source is newer than the module.
Without the module, detection.vocabulary falls back to its numpy implementation.
"""

import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildInPlace(build_ext):
    """Puts the module in place by renaming a new file over it, never by rewriting the old
    file: a process that has the old module loaded keeps it intact."""

    def copy_file(self, infile, outfile, *args, **kwargs):  # type: ignore[no-untyped-def]
        partial = f"{outfile}.{os.getpid()}.tmp"
        done = super().copy_file(infile, partial, *args, **kwargs)
        os.replace(partial, outfile)
        return outfile, done[1]


setup(
    packages=[],  # the apps run from the source tree: only the extension is built
    ext_modules=[
        # BLAKE2b from libb2 (Debian libb2-dev).
        Extension("detection._lisfeatures", ["detection/_lisfeatures.c"], libraries=["b2"])
    ],
    cmdclass={"build_ext": BuildInPlace},
)
