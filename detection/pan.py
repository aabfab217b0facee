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
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import quoteattr

from detection.config import DEFAULT_CONFIG, DetectorConfig
from detection.detector import SourceViews, analyze, detect_alignments, detect_with_sources
from detection.errors import DetectionError
from detection.index import MemoryIndex
from detection.model import Passage

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
    """The PAN detection XML of one pair."""
    lines = [f"<document reference={quoteattr(suspicious)}>"]
    for p in passages:
        lines.append(
            '<feature name="detected-plagiarism" '
            f'this_offset="{p.start}" this_length="{p.end - p.start}" '
            f"source_reference={quoteattr(source)} "
            f'source_offset="{p.source_start}" source_length="{p.source_end - p.source_start}" />'
        )
    lines.append("</document>")
    return "\n".join(lines) + "\n"


def output_name(suspicious: str, source: str) -> str:
    """``suspicious-documentXXXXX-source-documentYYYYY.xml``."""
    return f"{Path(suspicious).stem}-{Path(source).stem}.xml"


def _index_sources(
    source_dir: Path, sources: list[str], config: DetectorConfig
) -> tuple[MemoryIndex, int, int]:
    """All sources in one index (document id = position in ``sources``), characters, bytes."""
    index = MemoryIndex()
    characters = size = 0
    for number, name in enumerate(sources):
        text = read_text(source_dir / name)
        characters += len(text)
        size += (source_dir / name).stat().st_size
        index.add(number, analyze(text, config))
    return index, characters, size


def run_pan(
    pairs_file: Path,
    source_dir: Path,
    suspicious_dir: Path,
    out_dir: Path,
    config: DetectorConfig = DEFAULT_CONFIG,
    *,
    refine: bool = True,
) -> PanRun:
    """Detect every pair of ``pairs_file`` and write the PAN XML files into ``out_dir``.

    With ``refine`` (default) each suspicious document goes through
    :func:`detection.detector.detect_with_sources`, the function behind the app's
    :func:`detection.detector.detect_refined`: word-level borders and disguised copies.
    ``refine=False`` keeps the sentence borders of :func:`detection.detect` (what the app
    stores when it does not refine), for comparison.
    """
    pairs = read_pairs(pairs_file)
    sources = sorted({source for _, source in pairs})
    source_ids = {name: number for number, name in enumerate(sources)}
    index, characters, size = _index_sources(source_dir, sources, config)
    wanted: dict[str, set[str]] = defaultdict(set)
    for suspicious, source in pairs:
        wanted[suspicious].add(source)
    out_dir.mkdir(parents=True, exist_ok=True)
    views = SourceViews(lambda number: read_text(source_dir / sources[number]), config)
    for suspicious, its_sources in sorted(wanted.items()):
        text = read_text(suspicious_dir / suspicious)
        characters += len(text)
        size += (suspicious_dir / suspicious).stat().st_size
        ids = {source_ids[name] for name in its_sources}
        analysis = analyze(text, config)
        if refine:
            passages = detect_with_sources(text, analysis, index, views, within=ids, config=config)
        else:
            found = detect_alignments(analysis, index, config=config)
            passages = [a.passage for a in found if a.passage.source in ids]
        for name in its_sources:
            mine = [p for p in passages if p.source == source_ids[name]]
            target = out_dir / output_name(suspicious, name)
            target.write_text(passages_xml(suspicious, name, mine), encoding="utf-8")
    return PanRun(len(pairs), len(sources) + len(wanted), characters, size)
