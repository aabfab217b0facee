"""Run an evaluation and save its figures as JSON in ``benchmarks/results/``.

    .venv/bin/python -m benchmarks.record plagdet ../shared/data/pan13-verbatim-dev \
        ../shared/data/zh-reuse-dev
    NLTK_DATA=var/nltk_data .venv/bin/python -m benchmarks.record neardup \
        ../shared/data/zh-reprints-dev
    .venv/bin/python -m benchmarks.record extraction ../shared/data/zh-web-extraction

Each command replaces its data set's entry in one results file (``plagdet.json``,
``neardup.json``, ``extraction.json``) and leaves the other data sets' entries as they are;
``python -m benchmarks.render`` then writes the tables of README.md and docs/benchmarks.md.
The archive benchmark writes its own file: ``manage.py bench ... --json-out
benchmarks/results/archive.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from detection import DEFAULT_CONFIG
from detection.cli import evaluation_rows
from detection.neardup import METHODS
from detection.neardup.evaluation import evaluate_method, load_dataset
from detection.pan import run_pan
from extraction import extract
from extraction.evaluation import evaluate_folder as evaluate_extraction

RESULTS = Path(__file__).resolve().parent / "results"


def _stamp() -> dict[str, str]:
    """When and where a figure was measured (git keeps which code)."""
    return {
        "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%MZ"),
        "python": platform.python_version(),
    }


def save(name: str, dataset: str, entry: dict[str, Any], results: Path = RESULTS) -> Path:
    """Replace ``dataset``'s entry in ``results/<name>.json``, keeping the other data sets."""
    path = results / f"{name}.json"
    data = json.loads(path.read_text()) if path.exists() else {"sets": {}}
    data["sets"][dataset] = {**_stamp(), **entry}
    data["sets"] = dict(sorted(data["sets"].items()))
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return path


def plagdet(corpus: Path) -> dict[str, Any]:
    """PAN precision, recall, granularity and plagdet per truth folder of one corpus."""
    with tempfile.TemporaryDirectory() as out:
        run_pan(corpus / "pairs", corpus / "src", corpus / "susp", Path(out), DEFAULT_CONFIG)
        rows = evaluation_rows(corpus, Path(out))
    return {
        "folders": [
            {
                "name": row.name,
                "pairs": row.pairs,
                "pairs_with_detections": row.pairs_with_detections,
                "cases": len(row.cases),
                "precision": round(row.scores.precision, 4),
                "recall": round(row.scores.recall, 4),
                "granularity": round(row.scores.granularity, 4),
                "plagdet": round(row.scores.plagdet, 4),
            }
            for row in rows
        ]
    }


def neardup(folder: Path) -> dict[str, Any]:
    """Every near-duplicate method on a ``docs/ pairs.tsv clusters.tsv`` folder."""
    clusters: Path | None = folder / "clusters.tsv"
    if clusters is not None and not clusters.exists():
        clusters = None
    data = load_dataset(folder / "docs", folder / "pairs.tsv", clusters)
    methods = []
    for name in METHODS:
        result = evaluate_method(METHODS[name](), data).as_json()
        result.pop("docs_per_second")  # a speed of this run's machine, not a quality figure
        methods.append(result)
    return {"documents": len(data.texts), "pairs": len(data.pairs), "methods": methods}


def extraction(folder: Path) -> dict[str, Any]:
    """Order-aware (lcs) and bag-of-characters scores of HTML main-content extraction."""
    scores = evaluate_extraction(folder, lambda name, data: extract(name, data).text)
    return {measure: {k: round(v, 4) for k, v in vars(s).items()} for measure, s in scores.items()}


RECORDERS = {"plagdet": plagdet, "neardup": neardup, "extraction": extraction}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.record", description=__doc__)
    parser.add_argument("evaluation", choices=sorted(RECORDERS))
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--name", help="the data set's name in the results (default: folder name)")
    args = parser.parse_args(argv)
    for folder in args.datasets:
        entry = RECORDERS[args.evaluation](folder)
        path = save(args.evaluation, args.name or folder.resolve().name, entry)
        print(f"{folder}: saved in {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
