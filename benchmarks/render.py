"""Write the figure tables of README.md and docs/benchmarks.md from ``benchmarks/results/``.

    .venv/bin/python -m benchmarks.render            # rewrite the marked tables in place
    .venv/bin/python -m benchmarks.render --check    # exit 1 when a table is out of date

A table lives between ``<!-- BEGIN bench:NAME -->`` and ``<!-- END bench:NAME -->``; NAME is
a key of ``TABLES``. The figures come only from the JSON files (``benchmarks.record`` and
``manage.py bench --json-out``), so the documents never carry a figure that no run produced.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DOCUMENTS = (ROOT / "README.md", ROOT / "docs" / "benchmarks.md")

Results = dict[str, Any]

PLAGDET_COMMAND = "python -m benchmarks.record plagdet ../shared/data/{set}"
NEARDUP_COMMAND = "python -m benchmarks.record neardup ../shared/data/zh-reprints-dev"
EXTRACTION_COMMAND = "python -m benchmarks.record extraction ../shared/data/zh-web-extraction"
PIPELINE_COMMAND = "python manage.py evaluate_pipeline ../shared/data/{set}"
ARCHIVE_COMMAND = (
    "python manage.py bench --docs 100000 --sizes 13000,26000,44000,52000,100000 "
    "--json-out benchmarks/results/archive.json"
)


def load(results: Path = RESULTS) -> Results:
    """Every ``NAME.json`` of the results folder, keyed by NAME."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(results.glob("*.json"))}


def _table(header: list[str], rows: list[list[str]], right: int = 1) -> str:
    """A Markdown table; columns from ``right`` on are right-aligned."""
    rule = ["---" if i < right else "---:" for i in range(len(header))]
    lines = [header, rule, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def _f(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def plagdet_table(results: Results) -> str:
    """PAN measures per truth folder of every recorded corpus."""
    rows = []
    for name, entry in results["plagdet"]["sets"].items():
        for folder in entry["folders"]:
            clean = f"{folder['pairs'] - folder['pairs_with_detections']}/{folder['pairs']}"
            if folder["cases"] == 0:
                rows.append([f"{name} {folder['name']}", "–", "–", "–", "–", clean])
                continue
            rows.append(
                [
                    f"{name} {folder['name']}",
                    _f(folder["precision"], 4),
                    _f(folder["recall"], 4),
                    _f(folder["granularity"], 4),
                    f"**{_f(folder['plagdet'], 4)}**",
                    clean,
                ]
            )
    header = [
        "set / folder",
        "precision",
        "recall",
        "granularity",
        "plagdet",
        "pairs without detection",
    ]
    return _table(header, rows)


def neardup_table(results: Results) -> str:
    """F1 / duplicate-vs-containment accuracy / cluster ARI per method and data set."""
    sets = results["neardup"]["sets"]
    names = list(sets)
    methods = [m["method"] for m in sets[names[0]]["methods"]]
    by_set = {s: {m["method"]: m for m in sets[s]["methods"]} for s in names}
    rows = []
    for method in methods:
        cells = [method]
        for s in names:
            m = by_set[s].get(method)
            scores = m["scores"] if m else {}
            cells.append(
                " / ".join(
                    (_f(scores.get("f1")), _f(scores.get("relation_accuracy")), _f(m and m["ari"]))
                )
            )
        rows.append(cells)
    rows.sort(key=lambda cells: cells[1], reverse=True)
    return _table(["method", *names], rows)


def _at_target(archive: Results) -> Results:
    documents = archive["targets"]["at_documents"]
    return next(point for point in archive["curve"] if point["documents"] == documents)


def archive_table(results: Results) -> str:
    """Lookup and full-check latency, index size and source recall at each archive size."""
    rows = []
    for p in results["archive"]["curve"]:
        t = p["typical"]
        rows.append(
            [
                f"{p['documents']:,}",
                f"{p['postings'] / 1e6:.1f} M",
                f"{p['lookup_p50_ms']} / {p['lookup_p95_ms']} · {t['lookup_p50_ms']} / "
                f"{t['lookup_p95_ms']}",
                f"{p['check_p50_ms']} / {p['check_p95_ms']} · {t['check_p95_ms']}",
                f"{p['posting_mb_per_million_postings']}",
                f"{p['source_recall'] * 100:.1f} %",
            ]
        )
    header = [
        "archive docs",
        "postings",
        "lookup p50 / p95 ms, worst · typical",
        "sentence-level check p50 / p95 ms, worst · typical p95",
        "index MB per M postings",
        "sources found",
    ]
    return _table(header, rows)


def targets_table(results: Results) -> str:
    """The four targets at 10 million postings, with the figure that meets them."""
    archive = results["archive"]
    point = _at_target(archive)
    targets = archive["targets"]
    rows = [
        [
            "ingest ÷ tokenizer (per process)",
            f"{archive['ingest']['ingest_to_tokenizer_ratio']}",
            "≥ 0.40",
            targets["ingest_to_tokenizer_ratio>=0.4"],
        ],
        [
            "COPY postings/s",
            f"{archive['copy_load']['postings_per_s_copy']:,}",
            "≥ 200,000",
            targets["copy_postings_per_s>=200k"],
        ],
        ["lookup p95 ms", f"{point['lookup_p95_ms']}", "≤ 10", targets["lookup_p95_ms<=10"]],
        [
            "sentence-level check p95 ms",
            f"{point['check_p95_ms']}",
            "≤ 300",
            targets["check_p95_ms<=300"],
        ],
    ]
    for row in rows:
        row[3] = "met" if row[3] else "**missed**"
    return _table(["at 10 M postings", "figure", "target", "status"], rows)


def peer_table(results: Results) -> str:
    """The peer (MinHash LSH) against our lookup and full check on the same archive."""
    peer = results["archive"]["peer"]
    ours = peer["ours_at_same_size"]
    low = peer["at_low_threshold"]
    rows = [
        [
            "datasketch MinHash LSH, threshold 0.3",
            f"{peer['query_p50_ms']} / {peer['query_p95_ms']}",
            f"{peer['source_recall'] * 100:.1f} %",
        ],
        [
            f"datasketch MinHash LSH, threshold {low['threshold']}",
            f"{low['query_p50_ms']} / {low['query_p95_ms']}",
            f"{low['source_recall'] * 100:.1f} %",
        ],
        [
            "copydetect lookup (candidates)",
            f"{ours['lookup_p50_ms']} / {ours['lookup_p95_ms']}",
            "",
        ],
        [
            "copydetect full check (passages)",
            f"{ours['check_p50_ms']} / {ours['check_p95_ms']}",
            f"{ours['source_recall'] * 100:.1f} %",
        ],
    ]
    header = [f"{peer['documents']:,} documents", "p50 / p95 ms", "sources found"]
    return _table(header, rows)


def pan13_table(results: Results) -> str:
    """Per folder of the whole PAN 2013 training corpus: this detector against the peer
    (Sanchez-Perez et al.'s public PAN code) in the same run, with both wall times; four
    decimals, as the targets are checked (0.9298 is not 0.930)."""
    run = results["pan13"]
    peer = {folder["folder"]: folder for folder in run.get("peer", [])}
    rows = []
    for ours in run["ours"]:
        theirs = peer.get(ours["folder"])
        if ours["cases"] == 0:
            clean = f"{ours['pairs'] - ours['pairs_with_detections']}/{ours['pairs']} clean"
            other = (
                f"{theirs['pairs'] - theirs['pairs_with_detections']}/{theirs['pairs']} clean"
                if theirs
                else "—"
            )
            rows.append([ours["folder"], clean, "", "", "", other])
            continue
        rows.append(
            [
                ours["folder"],
                f"**{_f(ours['plagdet'], 4)}**",
                _f(ours["precision"], 4),
                _f(ours["recall"], 4),
                _f(ours["granularity"], 4),
                _f(theirs["plagdet"], 4) if theirs else "—",
            ]
        )
    rows.append(
        [
            "wall time (2 cores)",
            f"{run['ours_seconds']:.0f} s",
            "",
            "",
            "",
            f"{run['peer_seconds']:.0f} s ({run['speed_ratio']:.1f}× ours)"
            if run.get("peer_seconds")
            else "—",
        ]
    )
    header = ["pan13-train folder", "plagdet", "precision", "recall", "granularity", "peer plagdet"]
    return _table(header, rows)


def summary_table(results: Results) -> str:
    """The README's table: the headline figure of every evaluation, with its command."""
    rows = []
    if "pan13" in results:
        overall = results["pan13"]["ours"][-1]
        rows.append(
            [
                "disguised copies, pan13-train (5,185 pairs)",
                f"plagdet **{_f(overall['plagdet'], 4)}** (P {_f(overall['precision'], 4)}, "
                f"R {_f(overall['recall'], 4)}), {results['pan13']['speed_ratio']:.1f}× faster "
                "than the PAN 2014 winner's code",
                "`python -m benchmarks.pan13 ../shared/data/pan13-train --peer CMD`",
            ]
        )
    for name, entry in results["plagdet"]["sets"].items():
        overall = entry["folders"][-1]
        rows.append(
            [
                f"copy detection, {name}",
                f"plagdet **{_f(overall['plagdet'], 4)}** (P {_f(overall['precision'], 4)}, "
                f"R {_f(overall['recall'], 4)})",
                f"`{PLAGDET_COMMAND.format(set=name)}`",
            ]
        )
    for name, entry in results.get("pipeline", {}).get("sets", {}).items():
        rows.append(
            [
                f"whole pipeline, {name}",
                f"character P {_f(entry['precision'])}, R {_f(entry['recall'])}"
                + (
                    f" (command line on the same pairs: P {_f(entry['cli_precision'])}, "
                    f"R {_f(entry['cli_recall'])})"
                    if "cli_precision" in entry
                    else ""
                ),
                f"`{PIPELINE_COMMAND.format(set=name)}{entry.get('options', '')}`",
            ]
        )
    zh = results["neardup"]["sets"].get("zh-reprints-dev")
    if zh:
        best = max(zh["methods"], key=lambda m: m["scores"]["f1"] or 0)
        rows.append(
            [
                "near-duplicates, zh-reprints-dev",
                f"F1 **{_f(best['scores']['f1'])}** ({best['method']}), "
                f"cluster ARI {_f(best['ari'])}",
                f"`{NEARDUP_COMMAND}`",
            ]
        )
    lcs = results["extraction"]["sets"]["zh-web-extraction"]["lcs"]
    rows.append(
        [
            "HTML main content, zh-web-extraction",
            f"character F1 **{_f(lcs['micro_f1'])}** (P {_f(lcs['micro_precision'])}, "
            f"R {_f(lcs['micro_recall'])})",
            f"`{EXTRACTION_COMMAND}`",
        ]
    )
    archive = results["archive"]
    point = _at_target(archive)
    rows.append(
        [
            f"archive of {point['postings'] / 1e6:.1f} M postings",
            f"lookup p95 **{point['lookup_p95_ms']} ms**, sentence-level check p95 "
            f"**{point['check_p95_ms']} ms**, COPY "
            f"{archive['copy_load']['postings_per_s_copy'] / 1000:.0f}k postings/s, ingest "
            f"{archive['ingest']['ingest_to_tokenizer_ratio']} of the tokenizer's speed",
            f"`{ARCHIVE_COMMAND}`",
        ]
    )
    return _table(["what", "figure", "command"], rows, right=99)


TABLES: dict[str, Callable[[Results], str]] = {
    "summary": summary_table,
    "plagdet": plagdet_table,
    "neardup": neardup_table,
    "archive": archive_table,
    "targets": targets_table,
    "peer": peer_table,
    "pan13": pan13_table,
}

_BLOCK = re.compile(r"(<!-- BEGIN bench:(\w+) -->\n).*?(<!-- END bench:\2 -->)", re.S)


def render(text: str, results: Results) -> str:
    """``text`` with every marked table rewritten from ``results``."""

    def table(match: re.Match[str]) -> str:
        name = match.group(2)
        if name not in TABLES:
            raise KeyError(f"unknown table bench:{name}; known: {sorted(TABLES)}")
        return f"{match.group(1)}{TABLES[name](results)}\n{match.group(3)}"

    return _BLOCK.sub(table, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.render", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report out-of-date tables")
    args = parser.parse_args(argv)
    results = load()
    stale = []
    for path in DOCUMENTS:
        text = path.read_text()
        new = render(text, results)
        if new != text:
            stale.append(path)
            if not args.check:
                path.write_text(new)
    for path in stale:
        print(f"{path.relative_to(ROOT)}: {'out of date' if args.check else 'rewritten'}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
