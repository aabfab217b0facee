"""Command line: `python -m extraction extract FILE` | `evaluate FOLDER` | `archive ZIP`.

extract   prints the text of one file (warnings and excluded blocks go to stderr).
archive   lists the members of a ZIP batch and why any were skipped.
evaluate  scores HTML main-content extraction on a zh-web-extraction style folder
          (original/*.html vs cleaned/*.txt) with character precision/recall/F1 (see
          extraction/evaluation.py for the definitions).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import ArchiveMember, ExtractionError, extract, iter_archive
from .evaluation import Scores, evaluate_folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m extraction")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("extract", help="print the text of a file").add_argument("file", type=Path)
    commands.add_parser("archive", help="list a ZIP batch").add_argument("file", type=Path)
    evaluate = commands.add_parser("evaluate", help="score HTML extraction on a folder")
    evaluate.add_argument("folder", type=Path)
    evaluate.add_argument(
        "--boilerplate",
        action="store_true",
        help="also learn and strip each site's template lines (pages grouped by their URL)",
    )
    evaluate.add_argument("--min-share", type=float, default=0.5)
    evaluate.add_argument("--min-docs", type=int, default=3)
    args = parser.parse_args(argv)
    if args.command == "evaluate":
        setting = (args.min_share, args.min_docs) if args.boilerplate else None
        scores = evaluate_folder(
            args.folder, lambda name, data: extract(name, data).text, boilerplate=setting
        )
        for measure, score in scores.items():
            print(_format(measure, score))
        return 0
    try:
        return _extract(args.file) if args.command == "extract" else _archive(args.file)
    except ExtractionError as error:
        print(f"{args.file}: {error}", file=sys.stderr)
        return 1


def _extract(path: Path) -> int:
    result = extract(path.name, path.read_bytes())
    print(result.text)
    print(f"[{result.format}, encoding={result.encoding}, title={result.title!r}]", file=sys.stderr)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for block in result.excluded:
        print(f"excluded: {block!r}", file=sys.stderr)
    return 0


def _archive(path: Path) -> int:
    for item in iter_archive(path.name, path.read_bytes()):
        if isinstance(item, ArchiveMember):
            print(f"document  {item.path}  ({len(item.data)} bytes, folder {item.folder!r})")
        else:
            print(f"skipped   {item.path}  ({item.reason})")
    return 0


def _format(measure: str, s: Scores) -> str:
    return (
        f"{measure:>4} ({s.documents} pages)  micro P={s.micro_precision:.3f} "
        f"R={s.micro_recall:.3f} F1={s.micro_f1:.3f}  |  macro P={s.macro_precision:.3f} "
        f"R={s.macro_recall:.3f} F1={s.macro_f1:.3f}"
    )


if __name__ == "__main__":
    sys.exit(main())
