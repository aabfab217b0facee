"""The PAN text-alignment software interface (Potthast et al., PAN 2013/2014).

Input: a ``pairs`` file (``suspicious-documentXXXXX.txt source-documentYYYYY.txt`` per line)
and the two document folders; output: one XML per pair,
``suspicious-documentXXXXX-source-documentYYYYY.xml``, with one ``detected-plagiarism``
feature per passage.  Offsets count characters of the files read as UTF-8 with
``newline=""`` (Python ``str`` indices), as the corpus' truth does.

Passage borders are then refined at word level with both texts (:mod:`detection.refine`).
All source documents go into one :class:`~detection.index.MemoryIndex` (so ``max_df`` prunes
corpus-wide boilerplate as in the app); every suspicious document is analysed and detected
once, and its passages are written to the files of its pairs.
"""

from __future__ import annotations

from collections import defaultdict
from contextlib import nullcontext
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.pool import Pool
from pathlib import Path
from xml.sax.saxutils import quoteattr

from detection.config import DEFAULT_CONFIG, DetectorConfig
from detection.detector import SourceViews, analyze, detect_alignments, detect_with_sources
from detection.errors import DetectionError
from detection.index import MemoryIndex
from detection.model import DocumentAnalysis, Passage

__all__ = ["read_pairs", "read_text", "passages_xml", "run_pan", "PanRun"]


@dataclass(frozen=True, slots=True)
class PanRun:
    """What :func:`run_pan` processed (for throughput reports)."""

    pairs: int
    documents: int
    characters: int
    bytes: int


def read_pairs(path: Path) -> list[tuple[str, str]]:
    """The (suspicious, source) file names of a PAN ``pairs`` file."""
    pairs: list[tuple[str, str]] = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 2:
            raise DetectionError(f"{path}:{number}: expected 'suspicious.txt source.txt'")
        pairs.append((parts[0], parts[1]))
    return pairs


def read_text(path: Path) -> str:
    """A corpus document as PAN counts it: UTF-8, newlines untranslated."""
    with path.open(encoding="utf-8", newline="") as handle:
        return handle.read()


def passages_xml(suspicious: str, source: str, passages: list[Passage]) -> str:
    """The PAN detection XML of one pair; ``kind`` (verbatim, edited, summary) is ours, which
    the PAN evaluator ignores."""
    lines = [f"<document reference={quoteattr(suspicious)}>"]
    for p in passages:
        lines.append(
            '<feature name="detected-plagiarism" '
            f'this_offset="{p.start}" this_length="{p.end - p.start}" '
            f"source_reference={quoteattr(source)} "
            f'source_offset="{p.source_start}" source_length="{p.source_end - p.source_start}" '
            f'kind="{p.kind}" />'
        )
    lines.append("</document>")
    return "\n".join(lines) + "\n"


def output_name(suspicious: str, source: str) -> str:
    """``suspicious-documentXXXXX-source-documentYYYYY.xml``."""
    return f"{Path(suspicious).stem}-{Path(source).stem}.xml"


def _analyzed(task: tuple[Path, DetectorConfig]) -> DocumentAnalysis:
    return analyze(read_text(task[0]), task[1])


def _index_sources(
    source_dir: Path, sources: list[str], config: DetectorConfig, pool: Pool | None
) -> tuple[MemoryIndex, int, int]:
    """All sources in one index (document id = position in ``sources``), characters, bytes."""
    index = MemoryIndex()
    tasks = [(source_dir / name, config) for name in sources]
    analyses = pool.imap(_analyzed, tasks, chunksize=16) if pool else map(_analyzed, tasks)
    for number, analysis in enumerate(analyses):
        index.add(number, analysis)
    characters = sum(len(read_text(source_dir / name)) for name in sources)
    size = sum((source_dir / name).stat().st_size for name in sources)
    return index, characters, size


@dataclass(frozen=True, slots=True)
class _Job:
    """What every worker needs (inherited through fork, never pickled)."""

    index: MemoryIndex
    sources: list[str]
    source_dir: Path
    suspicious_dir: Path
    out_dir: Path
    config: DetectorConfig
    refine: bool
    views: SourceViews


_JOB: _Job | None = None


def _check(task: tuple[str, set[str]]) -> tuple[int, int]:
    """Detect one suspicious document against its sources and write its pairs' XML;
    returns its characters and bytes."""
    job = _JOB
    assert job is not None
    suspicious, its_sources = task
    source_ids = {name: number for number, name in enumerate(job.sources) if name in its_sources}
    path = job.suspicious_dir / suspicious
    text = read_text(path)
    analysis = analyze(text, job.config)
    ids = set(source_ids.values())
    if job.refine:
        passages = detect_with_sources(
            text, analysis, job.index, job.views, within=ids, config=job.config
        )
    else:
        found = detect_alignments(analysis, job.index, config=job.config)
        passages = [a.passage for a in found if a.passage.source in ids]
    for name, number in source_ids.items():
        mine = [p for p in passages if p.source == number]
        target = job.out_dir / output_name(suspicious, name)
        target.write_text(passages_xml(suspicious, name, mine), encoding="utf-8")
    return len(text), path.stat().st_size


def run_pan(
    pairs_file: Path,
    source_dir: Path,
    suspicious_dir: Path,
    out_dir: Path,
    config: DetectorConfig = DEFAULT_CONFIG,
    *,
    refine: bool = True,
    jobs: int = 1,
) -> PanRun:
    """Detect every pair of ``pairs_file`` and write the PAN XML files into ``out_dir``.

    With ``refine`` (default) each suspicious document goes through
    :func:`detection.detector.detect_with_sources`, the function behind the app's
    :func:`detection.detector.detect_refined`: word-level borders and disguised copies.
    ``refine=False`` keeps the sentence borders of :func:`detection.detect` (what the app
    stores when it does not refine), for comparison.  ``jobs`` > 1 analyses and checks the
    documents in that many forked processes (the output is the same: every step is per
    document, against the one index built from all sources).
    """
    global _JOB
    pairs = read_pairs(pairs_file)
    sources = sorted({source for _, source in pairs})
    wanted: dict[str, set[str]] = defaultdict(set)
    for suspicious, source in pairs:
        wanted[suspicious].add(source)
    out_dir.mkdir(parents=True, exist_ok=True)
    context = get_context("fork")
    with context.Pool(jobs) if jobs > 1 else nullcontext() as pool:
        index, characters, size = _index_sources(source_dir, sources, config, pool)
    views = SourceViews(lambda number: read_text(source_dir / sources[number]), config)
    _JOB = _Job(index, sources, source_dir, suspicious_dir, out_dir, config, refine, views)
    try:
        tasks = sorted(wanted.items())
        with context.Pool(jobs) if jobs > 1 else nullcontext() as pool:
            counts = pool.imap_unordered(_check, tasks, chunksize=4) if pool else map(_check, tasks)
            for chars, nbytes in counts:
                characters += chars
                size += nbytes
    finally:
        _JOB = None
    return PanRun(len(pairs), len(sources) + len(wanted), characters, size)
