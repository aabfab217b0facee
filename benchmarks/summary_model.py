"""Fit the summary decision's logistic model (``DetectorConfig.summary_model``) on pan13-train.

Summary mode takes a pair for a summary when looser seeds, joined over a wide source gap,
cover far more source than query text. A paraphrase read in order sometimes does too: weak
seeds of topical neighbours widen its source side, and the pair is reported as a summary of
a span several times too long. This script collects, over the plagiarism pairs of folders
02-05, every summary fragment that only the model may still refuse
(:func:`detection.disguise.weigh_summaries`, run with ``summary_model=None``), labels it a
summary when its pair is one (folder 05) and at least 60 % of its characters (both sides)
lie in the pair's cases, and fits a logistic regression on its six measures
(:func:`detection.disguise.summary_evidence`). A summary fragment inside a case of another
folder is no summary: normal mode aligns that copy sentence by sentence, where summary mode
widens its source side over loose neighbours. The fit is standardised, classes weighted
to balance, L2 penalty with C = 1 (the objective of scikit-learn's
``LogisticRegression(class_weight="balanced")``), by Newton's method.

It prints the model in raw units (bias first, as ``summary_model`` holds it) and, at the
config's ``summary_belief``, the fragments refused per folder, fitting on all pairs and
fitting on the pairs of odd-numbered suspicious documents to judge the even ones and back
(held-out)::

    python -m benchmarks.summary_model ../shared/data/pan13-train --jobs 2
"""

from __future__ import annotations

import argparse
import re
from dataclasses import replace
from multiprocessing import Pool
from pathlib import Path

import numpy as np

from detection.config import DEFAULT_CONFIG
from detection.detector import query_units
from detection.disguise import weigh_summaries
from detection.evaluation import Span, read_features
from detection.pan import read_text

CONFIG = replace(DEFAULT_CONFIG, summary_model=None)
FOLDERS = ("02", "03", "04", "05")
SUMMARIES = "05"
_PAIR = re.compile(r"(suspicious-document\d+)-(source-document\d+)\.xml$")


def _share_in_cases(query: tuple[int, int], source: tuple[int, int], cases: list[Span]) -> float:
    def inside(span: tuple[int, int], starts_ends: list[tuple[int, int]]) -> int:
        return sum(max(0, min(span[1], e) - max(span[0], s)) for s, e in starts_ends)

    covered = inside(query, [(c.this_start, c.this_end) for c in cases]) + inside(
        source, [(c.source_start, c.source_end) for c in cases]
    )
    return covered / max(1, (query[1] - query[0]) + (source[1] - source[0]))


def _pair_rows(task: tuple[Path, Path, str]) -> list[tuple[str, int, tuple[float, ...], bool]]:
    data, truth, folder = task
    match = _PAIR.search(truth.name)
    assert match is not None
    suspicious, source = match.group(1) + ".txt", match.group(2) + ".txt"
    cases = read_features(truth, (suspicious, source))
    query = query_units(read_text(data / "susp" / suspicious), CONFIG)
    original = query_units(read_text(data / "src" / source), CONFIG)
    number = int(suspicious[len("suspicious-document") : -len(".txt")])
    return [
        (folder, number, evidence, folder == SUMMARIES and _share_in_cases(q, s, cases) >= 0.6)
        for q, s, evidence in weigh_summaries(query, original, CONFIG)
    ]


def collect(data: Path, jobs: int) -> list[tuple[str, int, tuple[float, ...], bool]]:
    """Every summary fragment of the plagiarism pairs of folders 02-05 with its label."""
    tasks = []
    for folder in FOLDERS:
        directory = next(data.glob(f"{folder}-*"))
        for truth in sorted(directory.glob("*.xml")):
            if 'name="plagiarism"' in truth.read_text(encoding="utf-8"):
                tasks.append((data, truth, folder))
    with Pool(jobs) as pool:
        return [row for rows in pool.map(_pair_rows, tasks, chunksize=20) for row in rows]


def fit(features: np.ndarray, labels: np.ndarray, c: float = 1.0) -> np.ndarray:
    """Bias and weights, in the units of ``features``, of a logistic regression on the
    standardised features with balanced class weights and an L2 penalty (C = ``c``)."""
    mean, scale = features.mean(axis=0), features.std(axis=0)
    scale[scale == 0] = 1.0
    x = np.c_[np.ones(len(features)), (features - mean) / scale]
    y = labels.astype(np.float64)
    positives = max(1.0, float(y.sum()))
    negatives = max(1.0, float(len(y) - y.sum()))
    weights = np.where(labels, len(y) / (2 * positives), len(y) / (2 * negatives))
    penalty = np.r_[0.0, np.ones(features.shape[1])]  # the bias is not penalised
    beta = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(x @ beta)))
        gradient = c * x.T @ (weights * (p - y)) + penalty * beta
        hessian = c * (x.T * (weights * p * (1 - p))) @ x + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-10:
            break
    raw = beta[1:] / scale
    return np.r_[beta[0] - float(raw @ mean), raw]


def believed(model: np.ndarray, features: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(model[0] + features @ model[1:])))


def _refused(
    rows: list[tuple[str, int, tuple[float, ...], bool]], probabilities: np.ndarray, least: float
) -> str:
    parts = []
    for folder in FOLDERS:
        mine = [k for k, row in enumerate(rows) if row[0] == folder]
        refused = [k for k in mine if probabilities[k] < least]
        wrong = sum(1 for k in refused if rows[k][3])
        parts.append(f"{folder}: {len(refused)} of {len(mine)} refused ({wrong} true summaries)")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="pan13-train (folders 02-05, src/, susp/)")
    parser.add_argument("--jobs", type=int, default=2)
    arguments = parser.parse_args(argv)
    rows = collect(arguments.data, arguments.jobs)
    features = np.array([row[2] for row in rows], dtype=np.float64)
    labels = np.array([row[3] for row in rows])
    model = fit(features, labels)
    least = DEFAULT_CONFIG.summary_belief
    print(f"{len(rows)} summary fragments, {int(labels.sum())} true summaries")
    print("summary_model =", "(" + ", ".join(f"{w:.4f}" for w in model) + ")")
    print(f"fit on all, at {least}: {_refused(rows, believed(model, features), least)}")
    odd = np.array([row[1] % 2 == 1 for row in rows])
    held_out = np.zeros(len(rows))
    for part in (odd, ~odd):
        other = fit(features[~part], labels[~part])
        held_out[part] = believed(other, features[part])
    print(f"held out, at {least}: {_refused(rows, held_out, least)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
