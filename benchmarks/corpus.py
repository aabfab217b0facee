"""Benchmark archives made of REAL prose: the dev data and deterministic recombinations of it.

The dev data (`<repo>/../shared/data`) holds about 11 MB of English and Chinese text, far less
than a 100k-document archive.  Larger archives are made by recombining *runs of consecutive
sentences* of real documents: variant `i` starts from base document `i mod B` and replaces
runs by runs of other documents of the same language, chosen by a keyed blake2b hash of
`(i, slot)` (never Python's `hash()`, so every process and every run builds the same archive).
No character is invented; runs are joined by paragraph breaks, which always end a sentence.

Because sentence features are sentence-local (Low-IDF-Sig chains never cross a
sentence), a variant's analysis can be *composed* from the base analyses (sentence records
shifted to the variant's offsets).  `composed_agreement` checks this against a real `analyze()`
of the variant text; the bench reports that agreement next to the figures that rely on it.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence, Set
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from detection import DEFAULT_CONFIG, DetectorConfig, DocumentAnalysis, SentenceRecord
from detection.lexicon import term_id, terms
from detection.normalize import normalize
from detection.words import token_spans

# Sub-folders of the dev data that hold prose (the HTML originals and truth files are skipped).
PROSE_DIRS = (
    "pan13-verbatim-dev/src",
    "pan13-verbatim-dev/susp",
    "zh-reuse-dev/src",
    "zh-reuse-dev/susp",
    "zh-reprints-dev/docs",
    "zh-web-extraction/cleaned",
)
RUN_SENTENCES = (3, 8)
# Typical queries use variant numbers and re-keying rounds no archive document reaches.
_TYPICAL_QUERIES = -1_000_001
_TYPICAL_ROUND = 1 << 40  # a recombined run holds this many consecutive sentences (inclusive)
JOIN = "\n\n"  # a blank line: a paragraph break, which always ends a sentence


@dataclass(frozen=True)
class BaseDocument:
    """A real document of the dev data with its (real) analysis."""

    path: str
    text: str
    analysis: DocumentAnalysis

    @cached_property
    def sentence_terms(self) -> tuple[Counter[int], ...]:
        """The term counts (`detection.retrieval`) of each sentence of the analysis, from
        the sentence's own words: a recombined variant's terms are the sum of its
        sentences' (`composed_agreement` measures how close that is to a real analysis)."""
        return tuple(
            Counter(
                term_id(t)
                for t in terms(token_spans(normalize(self.text[s.start : s.end]).text)[0])
            )
            for s in self.analysis.sentences
        )


@dataclass(frozen=True)
class Variant:
    """A benchmark document: its text and the analysis composed from the base analyses."""

    text: str
    analysis: DocumentAnalysis


def default_data_dir() -> Path:
    """`<repo>/../shared/data`, where the team keeps the dev data."""
    return Path(__file__).resolve().parents[2] / "shared" / "data"


def read_prose(data_dir: Path) -> list[tuple[str, str]]:
    """(relative path, text) of every prose file, sorted by path, exact duplicates dropped."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    for sub in PROSE_DIRS:
        for path in sorted((data_dir / sub).glob("*.txt")):
            text = path.read_text(encoding="utf-8", errors="replace")
            digest = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
            if text.strip() and digest not in seen:
                seen.add(digest)
                found.append((str(path.relative_to(data_dir)), text))
    if not found:
        raise FileNotFoundError(f"no prose (*.txt) under {data_dir}; pass --data-dir")
    return found


def document_id(variant: int) -> int:
    """The Document id of variant `variant` in the benchmark database (ids start at 1)."""
    return variant + 1


def keyed(*parts: int) -> int:
    """A stable pseudo-random 64-bit number for `parts` (same in every process and run)."""
    data = b",".join(str(p).encode() for p in parts)
    return int.from_bytes(hashlib.blake2b(data, digest_size=8, key=b"bench").digest(), "big")


class Recombiner:
    """Builds variant `i` of the archive from the base documents (see the module docstring).

    With `distinct_rounds`, variant `i` of round `r = i // len(bases)` > 0 gets its features
    re-keyed by round (`rekey`): every round then stands for a different corpus with the real
    one's sizes, sentence lengths and feature statistics, instead of the same sentences once
    more.  Without it, a 100k-document archive made from ~1,600 real documents holds every
    real sentence ~60 times, so every query feature has ~60 postings: a worst case no real
    archive shows.  Features COMMON in the real documents (document frequency above the
    detector's own df limit for that many documents) keep their identity in every round, so
    their df grows with the archive as a common phrase's does in real text.  Queries
    (`query`) are never re-keyed: they copy from round 0.
    """

    def __init__(
        self,
        bases: Sequence[BaseDocument],
        *,
        distinct_rounds: bool = False,
        config: DetectorConfig = DEFAULT_CONFIG,
    ) -> None:
        usable = [b for b in bases if b.analysis.sentences]
        if not usable:
            raise ValueError("no base document has a sentence with features")
        self.bases = usable
        self.distinct_rounds = distinct_rounds
        self.common = common_features(usable, config.max_df(len(usable)))
        self.common_terms = common_terms(usable, config.max_df(len(usable)))
        self._by_language: dict[str, list[int]] = {}
        for number, base in enumerate(usable):
            self._by_language.setdefault(_family(base.analysis.language), []).append(number)

    def round_of(self, i: int) -> int:
        """0 for real-feature variants; the re-keying round otherwise."""
        return i // len(self.bases) if self.distinct_rounds else 0

    def variant(self, i: int) -> Variant:
        """Archive document `i`; `i < len(bases)` is the base document itself (unchanged)."""
        made = self._recombine(i, None)
        round_number = self.round_of(i)
        if round_number == 0:
            return made
        return Variant(
            made.text, rekey(made.analysis, round_number, self.common, self.common_terms)
        )

    def unkeyed(self, i: int) -> Variant:
        """Archive document `i` before re-keying (its analysis matches its text)."""
        return self._recombine(i, None)

    def query(self, q: int, *, target_chars: int) -> Variant:
        """Query document `q` of about `target_chars` characters (real features, not stored)."""
        return self._recombine(-1 - q, target_chars)

    def query_sources(self, q: int, *, target_chars: int) -> frozenset[int]:
        """The archive documents `query(q)` copies its runs (3-8 consecutive sentences) from:
        the base documents, which are archive documents 0..len(bases)-1 unchanged. The
        ground truth of the bench's source recall (a reprint of a source in the dev data may
        hold the same run too: found, it is not counted against anyone)."""
        number = {id(base): n for n, base in enumerate(self.bases)}
        return frozenset(number[id(source)] for source, _, _ in self._runs(-1 - q, target_chars))

    def typical_query(self, q: int, *, target_chars: int, passages: int = 3) -> Variant:
        """A TYPICAL query: about `target_chars` of text that is not in the archive, with
        `passages` runs of 3-8 consecutive real (round 0) archive sentences inserted at even
        places, like a PAN suspicious document with a few copied passages.

        The new text is a recombination whose features are re-keyed with a round no archive
        document uses (the device the archive's rounds use: real statistics, not stored;
        common features keep their identity, as common phrases do); the copied runs keep
        their real features.  The analysis is composed, as the archive's is.
        """
        i = _TYPICAL_QUERIES - q
        family = _family(self.bases[i % len(self.bases)].analysis.language)
        donors = self._by_language[family]
        copied = []
        for k in range(passages):
            source = self.bases[donors[keyed(i, 0xC0, k) % len(donors)]]
            copied.append((source, *_run(source, keyed(i, 0xC0, k, 1))))
        copied_chars = sum(_run_chars(*run) + len(JOIN) for run in copied)
        body = self._runs(i, max(1, target_chars - copied_chars))
        at = {len(body) * (k + 1) // (len(copied) + 1): k for k in range(len(copied))}
        runs, novel = [], []
        for k, run in enumerate(body):
            if k in at:
                runs.append(copied[at[k]])
                novel.append(False)
            runs.append(run)
            novel.append(True)
        made = compose(runs)
        key = keyed(_TYPICAL_ROUND + q, 0xFEA7)
        flags = [
            fresh
            for fresh, run in zip(novel, runs, strict=True)
            for _ in range(run[2] - run[1] + 1)
        ]
        records = tuple(
            _rekeyed(s, key, self.common) if fresh else s
            for s, fresh in zip(made.analysis.sentences, flags, strict=True)
        )
        analysis = made.analysis
        return Variant(
            made.text,
            DocumentAnalysis(analysis.language, analysis.model_version, records, analysis.terms),
        )

    def _recombine(self, i: int, target_chars: int | None) -> Variant:
        base = self.bases[i % len(self.bases)]
        if 0 <= i < len(self.bases) and target_chars is None:
            return Variant(base.text, base.analysis)
        return compose(self._runs(i, target_chars))

    def _runs(self, i: int, target_chars: int | None) -> list[tuple[BaseDocument, int, int]]:
        base = self.bases[i % len(self.bases)]
        target = target_chars or len(base.text)
        donors = self._by_language[_family(base.analysis.language)]
        runs: list[tuple[BaseDocument, int, int]] = []
        length, slot = 0, 0
        while length < target:
            # Even slots come from the base (at a shifting place), odd ones from a donor.
            source = base if slot % 2 == 0 else self.bases[donors[keyed(i, slot) % len(donors)]]
            first, last = _run(source, keyed(i, slot, 1))
            runs.append((source, first, last))
            length += _run_chars(source, first, last) + len(JOIN)
            slot += 1
        return runs


def compose(runs: Sequence[tuple[BaseDocument, int, int]]) -> Variant:
    """Text = the runs' text joined by paragraph breaks; analysis = their records, shifted."""
    pieces: list[str] = []
    records: list[SentenceRecord] = []
    counted: Counter[int] = Counter()
    offset = 0
    for source, first, last in runs:
        sentences = source.analysis.sentences[first : last + 1]
        if source.analysis.terms:  # analysed with term retrieval: terms are composed too
            for own in source.sentence_terms[first : last + 1]:
                counted.update(own)
        start, end = sentences[0].start, sentences[-1].end
        piece = source.text[start:end]
        for s in sentences:
            shifted = SentenceRecord(
                len(records), offset + s.start - start, offset + s.end - start, s.features
            )
            records.append(shifted)
        pieces.append(piece)
        offset += len(piece) + len(JOIN)
    language = runs[0][0].analysis.language
    version = runs[0][0].analysis.model_version
    return Variant(
        JOIN.join(pieces),
        DocumentAnalysis(language, version, tuple(records), tuple(sorted(counted.items()))),
    )


def common_features(bases: Sequence[BaseDocument], max_df: int) -> frozenset[int]:
    """Features in more than `max_df` of the real documents."""
    counts: Counter[int] = Counter()
    for base in bases:
        counts.update({f for s in base.analysis.sentences for f in s.features})
    return frozenset(f for f, n in counts.items() if n > max_df)


def common_terms(bases: Sequence[BaseDocument], max_df: int) -> frozenset[int]:
    """Terms in more than `max_df` of the real documents."""
    counts: Counter[int] = Counter()
    for base in bases:
        counts.update(t for t, _ in base.analysis.terms)
    return frozenset(t for t, n in counts.items() if n > max_df)


def rekey(
    analysis: DocumentAnalysis,
    round_number: int,
    keep: frozenset[int] = frozenset(),
    keep_terms: frozenset[int] = frozenset(),
) -> DocumentAnalysis:
    """The analysis with every feature not in `keep` and every term not in `keep_terms`
    XOR-ed with a round key (a bijection)."""
    key = keyed(round_number, 0xFEA7)
    records = tuple(_rekeyed(s, key, keep) for s in analysis.sentences)
    found = sorted((_keyed_id(t, key, keep_terms), n) for t, n in analysis.terms)
    return DocumentAnalysis(analysis.language, analysis.model_version, records, tuple(found))


def _keyed_id(value: int, key: int, keep: frozenset[int]) -> int:
    return value if value in keep else _signed(value ^ key)


def _rekeyed(s: SentenceRecord, key: int, keep: frozenset[int]) -> SentenceRecord:
    features = tuple(sorted(_keyed_id(f, key, keep) for f in s.features))
    return SentenceRecord(s.index, s.start, s.end, features)


def _signed(value: int) -> int:
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def variants(recombiner: Recombiner, ids: Sequence[int]) -> Iterator[tuple[int, Variant]]:
    for i in ids:
        yield i, recombiner.variant(i)


def composed_agreement(composed: DocumentAnalysis, real: DocumentAnalysis) -> float:
    """Share of the real analysis' features (as (sentence, feature)) the composed one has."""
    want = {(s.start, s.end, f) for s in real.sentences for f in s.features}
    have = {(s.start, s.end, f) for s in composed.sentences for f in s.features}
    return _share(want, have)


def composed_term_agreement(composed: DocumentAnalysis, real: DocumentAnalysis) -> float:
    """Share of the real analysis' (term, count) the composed one has."""
    return _share(set(real.terms), set(composed.terms))


def _share(want: Iterable[object], have: Set[object]) -> float:
    wanted = set(want)
    return 1.0 if not wanted else len(wanted & have) / len(wanted)


def _family(language: str) -> str:
    return "zh" if language in ("zh", "mixed") else "en"


def _run(source: BaseDocument, key: int) -> tuple[int, int]:
    """A run of RUN_SENTENCES consecutive sentences of `source`, placed by `key`."""
    count = len(source.analysis.sentences)
    low, high = RUN_SENTENCES
    size = min(count, low + key % (high - low + 1))
    first = (key >> 8) % (count - size + 1)
    return first, first + size - 1


def _run_chars(source: BaseDocument, first: int, last: int) -> int:
    sentences = source.analysis.sentences
    return sentences[last].end - sentences[first].start
