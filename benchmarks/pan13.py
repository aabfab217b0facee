"""PAN 2013 text alignment: this detector against a peer system, in one run.

A measurement, not a test (run it by hand, one heavy run at a time):

    .venv/bin/python -m benchmarks.pan13 /work/shared/data/pan13-train \\
        --peer 'PYTHONPATH=/work/peer/lib .venv/bin/python /work/peer/PAN2015.py \\
                {pairs} {src} {susp} {out}' --peer-cwd /work/peer

Runs every pair of the corpus' ``pairs`` through ``python -m detection pan`` (``--jobs``
processes) and then through the peer's command (``{pairs} {src} {susp} {out}`` are filled
in; the peer runs outside the repository), scores both output folders with
:mod:`detection.evaluation` (PAN's macro measures) and prints per folder and overall
plagdet, precision, recall, granularity, the pairs with any detection in the no-plagiarism
folder, and both wall times with their ratio.  The result is saved as JSON
(``benchmarks/results/pan13.json`` by default) for the docs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from detection.cli import evaluation_rows
from detection.evaluation import EvaluationRow

_RESULTS = Path(__file__).parent / "results" / "pan13.json"


def _ours(data: Path, out: Path, jobs: int, options: Sequence[str] = ()) -> float:
    """Wall seconds of ``python -m detection pan`` (with ``options``) over the whole corpus."""
    command = [sys.executable, "-m", "detection", "pan", "--jobs", str(jobs), *options]
    command += [str(data / "pairs"), str(data / "src"), str(data / "susp"), str(out)]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _peer(data: Path, out: Path, template: str, cwd: Path | None) -> float:
    """Wall seconds of the peer's command over the whole corpus."""
    out.mkdir(parents=True, exist_ok=True)
    command = template.format(
        pairs=shlex.quote(str(data / "pairs")),
        src=shlex.quote(str(data / "src")),
        susp=shlex.quote(str(data / "susp")),
        out=shlex.quote(str(out)),
    )
    started = time.perf_counter()
    subprocess.run(command, shell=True, check=True, cwd=cwd, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def _commit() -> str:
    """The repository's commit (with ``+`` when the work tree has changes)."""
    here = Path(__file__).parent
    run = subprocess.run(["git", "describe", "--always", "--dirty=+"], cwd=here,
                         capture_output=True, text=True, check=False)  # fmt: skip
    return run.stdout.strip() or "unknown"


def _row(row: EvaluationRow) -> dict[str, Any]:
    s = row.scores
    return {
        "folder": row.name,
        "pairs": row.pairs,
        "cases": len(row.cases),
        "pairs_with_detections": row.pairs_with_detections,
        "precision": round(s.precision, 4),
        "recall": round(s.recall, 4),
        "granularity": round(s.granularity, 4),
        "plagdet": round(s.plagdet, 4),
    }


def _print(name: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{name}")
    print(f"{'folder':<28} {'plagdet':>8} {'prec':>7} {'recall':>7} {'gran':>7} {'detected':>10}")
    for r in rows:
        detected = f"{r['pairs_with_detections']}/{r['pairs']}"
        print(
            f"{r['folder']:<28} {r['plagdet']:>8.4f} {r['precision']:>7.4f} "
            f"{r['recall']:>7.4f} {r['granularity']:>7.4f} {detected:>10}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="a PAN corpus: pairs, src/, susp/, NN-*/ truth")
    parser.add_argument("--peer", help="the peer's command with {pairs} {src} {susp} {out}")
    parser.add_argument("--peer-cwd", type=Path, help="folder the peer's command runs in")
    parser.add_argument("--jobs", type=int, default=2, help="our worker processes")
    parser.add_argument(
        "--term-retrieval", action="store_true", help="run ours with term retrieval on"
    )
    parser.add_argument("--json", type=Path, default=_RESULTS, help="where the result goes")
    parser.add_argument("--keep", type=Path, help="keep both output folders here")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pan13-") as scratch:
        base = arguments.keep or Path(scratch)
        ours_out, peer_out = base / "ours", base / "peer"
        result: dict[str, Any] = {
            "corpus": str(arguments.data),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "jobs": arguments.jobs,
            "term_retrieval": arguments.term_retrieval,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "commit": _commit(),
        }
        options = ["--term-retrieval"] if arguments.term_retrieval else []
        seconds = _ours(arguments.data, ours_out, arguments.jobs, options)
        result["ours_seconds"] = round(seconds, 1)
        result["ours"] = [_row(r) for r in evaluation_rows(arguments.data, ours_out)]
        _print(f"this detector: {result['ours_seconds']} s", result["ours"])
        if arguments.peer:
            seconds = _peer(arguments.data, peer_out, arguments.peer, arguments.peer_cwd)
            result["peer_command"] = arguments.peer
            result["peer_seconds"] = round(seconds, 1)
            result["peer"] = [_row(r) for r in evaluation_rows(arguments.data, peer_out)]
            result["speed_ratio"] = round(seconds / result["ours_seconds"], 2)
            _print(f"peer: {result['peer_seconds']} s", result["peer"])
            print(
                f"\nwall time: ours {result['ours_seconds']} s, peer {seconds:.1f} s, "
                f"peer / ours = {result['speed_ratio']}"
            )
    arguments.json.parent.mkdir(parents=True, exist_ok=True)
    arguments.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print("saved", arguments.json)


if __name__ == "__main__":
    main()
