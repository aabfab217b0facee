"""Runs every method over a near-duplicate set (the zh-reprints-dev layout) and scores it.

Layout: ``DOCS_DIR/*.txt``; ``pairs.tsv`` (header ``doc_a doc_b label``, label ∈ duplicate |
containment | different); optional ``clusters.tsv`` (header ``doc cluster``).
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from detection.neardup.base import NearDupMethod
from detection.neardup.clustering import StreamingClusterer, two_hop_classes
from detection.neardup.collection import related_pairs, signatures
from detection.neardup.metrics import PairScores, adjusted_rand_index, pair_scores

__all__ = ["Dataset", "load_dataset", "MethodResult", "evaluate_method", "measure_quantiles"]

QUANTILES = (0.0, 0.02, 0.1, 0.5, 0.9, 0.98, 1.0)


@dataclass(frozen=True)
class Dataset:
    texts: dict[str, str]  # file name → text
    pairs: dict[tuple[str, str], str]
    clusters: dict[str, int] | None


def _read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def load_dataset(docs_dir: Path, pairs: Path, clusters: Path | None = None) -> Dataset:
    texts = {p.name: p.read_text(encoding="utf-8") for p in sorted(docs_dir.glob("*.txt"))}
    pair_rows = {(r["doc_a"], r["doc_b"]): r["label"] for r in _read_tsv(pairs)}
    cluster_rows = {r["doc"]: int(r["cluster"]) for r in _read_tsv(clusters)} if clusters else None
    return Dataset(texts, pair_rows, cluster_rows)


@dataclass(frozen=True)
class MethodResult:
    method: str
    version: str
    scores: PairScores
    ari: float | None
    ari_streaming: float | None
    docs_per_second: float
    compared_pairs: int
    # "different" pairs of two pages opening with the same line (the same site's header):
    # how many the method called near-duplicates, out of how many such pairs were listed.
    same_site_false_matches: int
    same_site_pairs: int

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["scores"] = asdict(self.scores)
        return data


def evaluate_method(method: NearDupMethod[Any], data: Dataset) -> MethodResult:
    """Fit, sign, index and cluster ``data`` with ``method``; score pairs and clusters.

    Pair decisions are the method's ``relation`` on each listed pair's signatures; the speed
    covers fitting, signing and the indexed all-pairs search of the whole set.
    """
    names = sorted(data.texts)
    ids = {name: i for i, name in enumerate(names)}
    started = time.perf_counter()
    sigs = signatures(method, {ids[n]: data.texts[n] for n in names})
    found = related_pairs(method, sigs)
    elapsed = time.perf_counter() - started
    predicted = {(a, b): method.relation(sigs[ids[a]], sigs[ids[b]]).kind for a, b in data.pairs}
    ari = ari_stream = None
    if data.clusters is not None:
        batch = {names[m]: centre for centre, ms in two_hop_classes(sigs, found) for m in ms}
        ari = adjusted_rand_index(data.clusters, batch)
        ari_stream = adjusted_rand_index(data.clusters, _streaming(method, sigs, names))
    same_site = [
        p for p, label in data.pairs.items() if label == "different" and _same_site(data, p)
    ]
    return MethodResult(
        method.name,
        method.config.version,
        pair_scores(data.pairs, predicted),
        ari,
        ari_stream,
        len(names) / elapsed if elapsed else float("inf"),
        len(found),
        sum(predicted[p] != "different" for p in same_site),
        len(same_site),
    )


def measure_quantiles(
    method: NearDupMethod[Any], data: Dataset, points: tuple[float, ...] = QUANTILES
) -> dict[str, dict[str, list[float]]]:
    """label → measure → its quantiles over the listed pairs (for methods with ``measures``).

    This is the data the thresholds in each method's docstring are justified with.
    """
    measures = getattr(method, "measures", None)
    if measures is None:
        return {}
    ids = {name: i for i, name in enumerate(sorted(data.texts))}
    sigs = signatures(method, {i: data.texts[name] for name, i in ids.items()})
    values: dict[str, dict[str, list[float]]] = {}
    for (a, b), label in data.pairs.items():
        for key, value in measures(sigs[ids[a]], sigs[ids[b]]).items():
            values.setdefault(label, {}).setdefault(key, []).append(float(value))
    return {
        label: {key: _quantiles(v, points) for key, v in by_key.items()}
        for label, by_key in sorted(values.items())
    }


def _quantiles(values: list[float], points: tuple[float, ...]) -> list[float]:
    ordered = sorted(values)
    return [round(ordered[round(p * (len(ordered) - 1))], 3) for p in points]


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _same_site(data: Dataset, pair: tuple[str, str]) -> bool:
    return _first_line(data.texts[pair[0]]) == _first_line(data.texts[pair[1]])


def _streaming(
    method: NearDupMethod[Any], sigs: Mapping[int, Any], names: list[str]
) -> dict[str, int]:
    clusterer = StreamingClusterer(method)
    return {names[doc]: clusterer.assign(doc, sigs[doc]) for doc in sorted(sigs)}


def evaluate_all(
    factories: Mapping[str, Callable[[], NearDupMethod[Any]]], data: Dataset
) -> list[MethodResult]:
    return [evaluate_method(factory(), data) for factory in factories.values()]
