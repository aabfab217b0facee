"""Subcommands ``compare``, ``pan`` and ``evaluate`` of ``python -m detection``."""

from __future__ import annotations

import argparse
import unicodedata
from pathlib import Path

from detection.config import DEFAULT_CONFIG, TERM_RETRIEVAL_CONFIG
from detection.detector import compare
from detection.evaluation import EvaluationRow, combine, evaluate_folder
from detection.pan import read_text, run_pan

__all__ = ["register"]


def _display_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` terminal columns (CJK characters take two)."""
    lines: list[str] = []
    line = ""
    for ch in " ".join(text.split()):
        if _display_width(line + ch) > width:
            lines.append(line)
            line = ch.lstrip()
        else:
            line += ch
    return [*lines, line] if line or not lines else lines


def _compare(arguments: argparse.Namespace) -> int:
    text_a = read_text(Path(arguments.a))
    text_b = read_text(Path(arguments.b))
    passages = compare(text_a, text_b, DEFAULT_CONFIG)
    width = arguments.width
    for number, p in enumerate(passages, 1):
        print(
            f"#{number} score {p.score:.2f}  A[{p.start}:{p.end}]  "
            f"B[{p.source_start}:{p.source_end}]"
        )
        left = _wrap(text_a[p.start : p.end], width)
        right = _wrap(text_b[p.source_start : p.source_end], width)
        for row in range(max(len(left), len(right))):
            a = left[row] if row < len(left) else ""
            b = right[row] if row < len(right) else ""
            print(f"  {a}{' ' * (width - _display_width(a))} | {b}")
        print()
    if not passages:
        print("no copied passages")
    return 0


def _pan(arguments: argparse.Namespace) -> int:
    run = run_pan(
        Path(arguments.pairs),
        Path(arguments.src_dir),
        Path(arguments.susp_dir),
        Path(arguments.out_dir),
        TERM_RETRIEVAL_CONFIG if arguments.term_retrieval else DEFAULT_CONFIG,
        refine=not arguments.sentence_borders,
        jobs=arguments.jobs,
    )
    print(f"{run.pairs} pairs, {run.documents} documents written to {arguments.out_dir}")
    return 0


def _format(row: EvaluationRow) -> str:
    s = row.scores
    clean = row.pairs - row.pairs_with_detections
    return (
        f"{row.name:<20} pairs {row.pairs:>4}  cases {len(row.cases):>4}  "
        f"precision {s.precision:.4f}  recall {s.recall:.4f}  granularity {s.granularity:.4f}  "
        f"plagdet {s.plagdet:.4f}  pairs-without-detection {clean}/{row.pairs}"
    )


def evaluation_rows(truth_dir: Path, detections_dir: Path) -> list[EvaluationRow]:
    """One row per ``NN-name`` truth folder, then the pooled "overall" row."""
    folders = sorted(p for p in truth_dir.iterdir() if p.is_dir() and (p / "pairs").exists())
    rows = [evaluate_folder(folder, detections_dir) for folder in folders]
    return [*rows, combine(rows)]


def _evaluate(arguments: argparse.Namespace) -> int:
    for row in evaluation_rows(Path(arguments.truth_dir), Path(arguments.det_dir)):
        print(_format(row))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add this module's subcommands to the ``python -m detection`` parser."""
    command = subparsers.add_parser("compare", help="print the passages of A copied from B")
    command.add_argument("a")
    command.add_argument("b")
    command.add_argument("--width", type=int, default=50)
    command.set_defaults(handler=_compare)
    command = subparsers.add_parser("pan", help="PAN text-alignment interface")
    for name in ("pairs", "src_dir", "susp_dir", "out_dir"):
        command.add_argument(name)
    command.add_argument(
        "--sentence-borders",
        action="store_true",
        help="skip word-level border refinement (what detect() alone returns)",
    )
    command.add_argument(
        "--jobs", type=int, default=1, help="worker processes (same output, faster)"
    )
    command.add_argument(
        "--term-retrieval",
        action="store_true",
        help="also find sources through their words (detection.retrieval; off by default)",
    )
    command.set_defaults(handler=_pan)
    command = subparsers.add_parser("evaluate", help="PAN precision/recall/granularity/plagdet")
    command.add_argument("truth_dir")
    command.add_argument("det_dir")
    command.set_defaults(handler=_evaluate)
