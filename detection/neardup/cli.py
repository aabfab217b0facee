"""Near-duplicate subcommands of ``python -m detection`` (registered through :func:`register`).

- ``neardup-eval DOCS_DIR PAIRS.tsv [CLUSTERS.tsv]`` compares every method: one JSON object
  (``{"documents": n, "pairs": m, "methods": [...]}``) and then a readable table.
- ``neardup-cluster DOCS_DIR [--method periods]`` prints one JSON line per cluster.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from detection.neardup import METHODS, NearDupMethod, cluster_documents
from detection.neardup.evaluation import (
    QUANTILES,
    Dataset,
    MethodResult,
    evaluate_method,
    load_dataset,
    measure_quantiles,
)

__all__ = ["register", "format_table"]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    command = subparsers.add_parser(
        "neardup-eval", help="score every near-duplicate method on a labelled document set"
    )
    command.add_argument("docs_dir", type=Path, help="folder of *.txt documents")
    command.add_argument("pairs", type=Path, help="pairs.tsv: doc_a doc_b label")
    command.add_argument("clusters", type=Path, nargs="?", help="clusters.tsv: doc cluster")
    command.add_argument(
        "--methods",
        default=",".join(METHODS),
        help=f"comma-separated subset of {', '.join(METHODS)} (default: all)",
    )
    command.add_argument(
        "--no-templates",
        action="store_true",
        help="switch off every method's template step (to measure what it is worth)",
    )
    command.add_argument(
        "--measures",
        action="store_true",
        help="instead of scores, print per-label quantiles of each method's similarity measures",
    )
    command.set_defaults(handler=_run)
    command = subparsers.add_parser(
        "neardup-cluster", help="group a folder of *.txt documents into near-duplicate clusters"
    )
    command.add_argument("docs_dir", type=Path, help="folder of *.txt documents")
    command.add_argument("--method", default="periods", choices=sorted(METHODS))
    command.add_argument("--all", action="store_true", help="also print single documents")
    command.set_defaults(handler=_cluster)


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def format_table(results: list[MethodResult]) -> str:
    """A fixed-width table: one row per method."""
    header = (
        f"{'method':<10} {'P':>6} {'R':>6} {'F1':>6} {'dup/cont':>8} "
        f"{'ARI':>6} {'ARI-str':>7} {'site-FP':>9} {'docs/s':>8}"
    )
    rows = [header, "-" * len(header)]
    for r in results:
        s = r.scores
        rows.append(
            f"{r.method:<10} {_fmt(s.precision):>6} {_fmt(s.recall):>6} {_fmt(s.f1):>6} "
            f"{_fmt(s.relation_accuracy):>8} {_fmt(r.ari):>6} {_fmt(r.ari_streaming):>7} "
            f"{f'{r.same_site_false_matches}/{r.same_site_pairs}':>9} {r.docs_per_second:>8.0f}"
        )
    return "\n".join(rows)


def _make(name: str, no_templates: bool) -> NearDupMethod[Any]:
    method = METHODS[name]()
    if no_templates and hasattr(method.config, "strip_templates"):
        method = type(method)(replace(method.config, strip_templates=False))  # type: ignore[call-arg]
    return method


def _cluster(args: argparse.Namespace) -> int:
    """One JSON object per cluster: centre and members with their relation to the centre."""
    paths = sorted(args.docs_dir.glob("*.txt"))
    texts = {i: p.read_text(encoding="utf-8") for i, p in enumerate(paths)}
    for cluster in cluster_documents(METHODS[args.method](), texts):
        if len(cluster.members) < 2 and not args.all:
            continue
        members = [
            {"doc": paths[m.doc_id].name, "relation": m.relation, "score": round(m.score, 3)}
            for m in cluster.members
        ]
        print(json.dumps({"centre": paths[cluster.centre].name, "members": members}))
    return 0


def _print_measures(names: list[str], data: Dataset) -> int:
    report = {name: measure_quantiles(METHODS[name](), data) for name in names}
    print(json.dumps({"quantiles": list(QUANTILES), "methods": report}, ensure_ascii=False))
    print("quantiles " + " ".join(f"{q:g}" for q in QUANTILES))
    for name, by_label in report.items():
        for label, by_key in by_label.items():
            for key, values in by_key.items():
                row = " ".join(f"{v:>6.3f}" for v in values)
                print(f"{name:<9} {label:<12} {key:<12} {row}")
    return 0


def _run(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.methods.split(",") if n.strip()]
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise SystemExit(f"unknown method(s) {unknown}; choose from {sorted(METHODS)}")
    data = load_dataset(args.docs_dir, args.pairs, args.clusters)
    if args.measures:
        return _print_measures(names, data)
    results = [evaluate_method(_make(name, args.no_templates), data) for name in names]
    summary = {
        "documents": len(data.texts),
        "pairs": len(data.pairs),
        "methods": [r.as_json() for r in results],
    }
    print(json.dumps(summary, ensure_ascii=False))
    print(format_table(results))
    return 0
