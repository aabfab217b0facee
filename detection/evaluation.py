"""PAN text-alignment measures (Potthast, Stein, Barrón-Cedeño, Rosso, COLING 2010).

A case ``s`` (truth) and a detection ``r`` are character ranges on both the suspicious and the
source document of one pair; ``r`` *detects* ``s`` when they overlap on both sides (the PAN
evaluation script's rule).  With ``s ⊓ r = s ∩ r`` if ``r`` detects ``s`` else ∅, and sizes
counted as characters of both documents:

    precision   = 1/|R| · Σ_r |∪_s (s ⊓ r)| / |r|
    recall      = 1/|S| · Σ_s |∪_r (s ⊓ r)| / |s|
    granularity = 1/|S_R| · Σ_{s ∈ S_R} |R_s|      (S_R: detected cases, R_s: their detectors)
    plagdet     = F1(precision, recall) / log2(1 + granularity)

As in the PAN script: precision and recall are 1 when there are neither cases nor detections
and 0 when only one side is empty; granularity is 1 when no case is detected.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from detection.pan import output_name, read_pairs

__all__ = ["Span", "Scores", "score", "read_features", "evaluate_folder", "EvaluationRow"]

_FEATURE = re.compile(r"<feature\b[^>]*>")
_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')
_CASE_NAMES = frozenset({"plagiarism", "detected-plagiarism"})


@dataclass(frozen=True, slots=True)
class Span:
    """A case or detection: ``this`` range in ``pair[0]``, ``source`` range in ``pair[1]``."""

    pair: tuple[str, str]
    this_start: int
    this_end: int
    source_start: int
    source_end: int

    @property
    def size(self) -> int:
        return (self.this_end - self.this_start) + (self.source_end - self.source_start)

    def detects(self, other: Span) -> bool:
        return (
            self.pair == other.pair
            and self.this_start < other.this_end
            and other.this_start < self.this_end
            and self.source_start < other.source_end
            and other.source_start < self.source_end
        )


@dataclass(frozen=True, slots=True)
class Scores:
    precision: float
    recall: float
    granularity: float

    @property
    def plagdet(self) -> float:
        if self.precision + self.recall == 0:
            return 0.0
        f1 = 2 * self.precision * self.recall / (self.precision + self.recall)
        return f1 / math.log2(1 + self.granularity)


def _union_length(ranges: Iterable[tuple[int, int]]) -> int:
    total = 0
    reach = -1
    for start, end in sorted(ranges):
        start = max(start, reach)
        if end > start:
            total += end - start
            reach = end
    return total


def _covered_share(target: Span, others: Sequence[Span]) -> float:
    """|∪_o (target ∩ o)| / |target| over the ``others`` overlapping ``target``."""
    hits = [o for o in others if o.detects(target)]
    if not hits or target.size == 0:
        return 0.0
    this = _union_length(
        (max(o.this_start, target.this_start), min(o.this_end, target.this_end)) for o in hits
    )
    source = _union_length(
        (max(o.source_start, target.source_start), min(o.source_end, target.source_end))
        for o in hits
    )
    return (this + source) / target.size


def _macro(targets: Sequence[Span], others: Sequence[Span]) -> float:
    if not targets and not others:
        return 1.0
    if not targets or not others:
        return 0.0
    return sum(_covered_share(t, others) for t in targets) / len(targets)


def score(cases: Sequence[Span], detections: Sequence[Span]) -> Scores:
    """Macro precision, recall and granularity of ``detections`` against ``cases``."""
    counts = [sum(1 for r in detections if r.detects(s)) for s in cases]
    detected = [n for n in counts if n]
    granularity = sum(detected) / len(detected) if detected else 1.0
    return Scores(_macro(detections, cases), _macro(cases, detections), granularity)


def read_features(path: Path, pair: tuple[str, str]) -> list[Span]:
    """Cases or detections of one PAN XML file (missing file: none).

    Only ``plagiarism`` and ``detected-plagiarism`` features count: PAN 2013's summary folder
    also carries metadata features (``about``, ``md5``) without offsets."""
    if not path.exists():
        return []
    spans: list[Span] = []
    for tag in _FEATURE.findall(path.read_text("utf-8")):
        values = dict(_ATTRIBUTE.findall(tag))
        if values.get("name") not in _CASE_NAMES:
            continue
        this, source = int(values["this_offset"]), int(values["source_offset"])
        spans.append(
            Span(
                pair,
                this,
                this + int(values["this_length"]),
                source,
                source + int(values["source_length"]),
            )
        )
    return spans


@dataclass(frozen=True, slots=True)
class EvaluationRow:
    """Scores of one truth folder (or of all folders)."""

    name: str
    pairs: int
    pairs_with_detections: int
    scores: Scores
    cases: tuple[Span, ...]
    detections: tuple[Span, ...]


def evaluate_folder(folder: Path, detections_dir: Path) -> EvaluationRow:
    """Score the detections in ``detections_dir`` against one ``NN-name`` truth folder."""
    cases: list[Span] = []
    found: list[Span] = []
    with_detections = 0
    pairs = read_pairs(folder / "pairs")
    for pair in pairs:
        name = output_name(*pair)
        cases.extend(read_features(folder / name, pair))
        mine = read_features(detections_dir / name, pair)
        with_detections += bool(mine)
        found.extend(mine)
    return EvaluationRow(
        folder.name, len(pairs), with_detections, score(cases, found), tuple(cases), tuple(found)
    )


def combine(rows: Sequence[EvaluationRow]) -> EvaluationRow:
    """All folders pooled into one row named "overall"."""
    cases = tuple(c for row in rows for c in row.cases)
    found = tuple(d for row in rows for d in row.detections)
    return EvaluationRow(
        "overall",
        sum(r.pairs for r in rows),
        sum(r.pairs_with_detections for r in rows),
        score(cases, found),
        cases,
        found,
    )
