"""``python -m detection``: a small dispatcher over the subcommands of detection.cli.

Other packages add subcommands through a ``register(subparsers)`` hook: the near-duplicate
engineer's ``detection.neardup.cli`` is picked up when it exists.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from detection import cli

_PLUGINS = ("detection.neardup.cli",)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m detection", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True)
    cli.register(subparsers)
    for name in _PLUGINS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name is not None and name.startswith(error.name):
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = build_parser().parse_args(argv)
    return int(arguments.handler(arguments) or 0)


if __name__ == "__main__":
    sys.exit(main())
