"""Offset-keeping text normalisation.

Copies are reprinted (full-width digits and punctuation become half-width), converted to
traditional characters, re-wrapped and re-cased.  Low-IDF-Sig compares sentences word by word, so
every such variant must fold to the same string before words are cut — but the UI highlights
the *original* text, so every normalised character remembers where it came from.

Steps, all applied per character through one cached translation table (so the common case runs
at ``str.translate`` speed):

1. Unicode compatibility folding (NFKC): full/half width, circled digits, ligatures.
2. Case folding (``str.lower``).
3. Traditional → simplified Chinese with OpenCC ``t2s`` applied *per character*: a
   deterministic character function keeps offsets exact and maps a traditional copy and its
   simplified original to the same string (phrase-level conversion could change lengths).
4. Invisible characters (zero-width spaces, BOM, soft hyphen, controls) are dropped.
5. Whitespace: a single line break between two Han ideographs disappears (a line wrapped inside
   a sentence, as in text extracted from PDF: a Chinese paragraph ends with punctuation); a run
   holding a blank line, or a line break next to other CJK text (Chinese news puts one paragraph
   per line), becomes ``"\\n"`` (a paragraph break, a sentence boundary); any other run between
   two CJK characters disappears (spaced-out Chinese); the rest becomes one space.  Leading and
   trailing whitespace goes.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

import numpy as np
import opencc

__all__ = [
    "Normalized",
    "normalize",
    "normalize_with_offsets",
    "original_spans",
    "NORMALIZE_VERSION",
]

#: Changes whenever the output of :func:`normalize` can change for some input.
NORMALIZE_VERSION: Final = "n2"

# Ideographs and CJK punctuation: text where whitespace is not a word separator.
_CJK_CLASS: Final = (
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u31a0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
    "\U00020000-\U0003ffff"
)
_CJK_CHAR: Final = re.compile(f"[{_CJK_CLASS}]")
# Han ideographs only (no punctuation): a single line break between two of them is a soft wrap.
_IDEOGRAPH: Final = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_IDEOGRAPH_CHAR: Final = re.compile(f"[{_IDEOGRAPH}]")
# Whitespace that may need folding: runs of two or more, any single whitespace but the plain
# space and the line break, a single space between CJK characters, and whitespace at either end.
# Plain single spaces between words stay as they are, and so does a single line break: next to
# CJK text it is kept (a paragraph per line), between Latin words _LATIN_SINGLE has already made
# it a space — so most whitespace never reaches Python code.
_WHITESPACE_RUN: Final = re.compile(  # the leading (?=\s) lets other positions fail fast
    rf"(?=\s)(?:\s{{2,}}|[^\S \n]| (?<=[{_CJK_CLASS}] )(?=[{_CJK_CLASS}])"
    rf"|\n(?<=[{_IDEOGRAPH}]\n)(?=[{_IDEOGRAPH}])|\A\s|\s\Z)"
)
# A single line break or tab between two non-CJK, non-space characters becomes one space (the
# commonest case in hard-wrapped Latin text); same length, so offsets stay as they are and no
# Python code runs per line.
_LATIN_SINGLE: Final = re.compile(rf"[^\S ](?<=[^\s{_CJK_CLASS}][^\S ])(?=[^\s{_CJK_CLASS}])")
# Without CJK text _WHITESPACE_RUN can only match where two whitespace characters meet, at
# whitespace other than " " and "\n", or at either end; these are found with str.find and one
# search for the rare characters instead of stopping the regex at every space.
_PAIRS: Final = ("  ", " \n", "\n ", "\n\n")
_RARE_WHITESPACE: Final = re.compile(
    "[\t\x0b-\r\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)
_ASCII_RARE_WHITESPACE: Final = "\t\x0b\x0c\r\x1c\x1d\x1e\x1f"  # _RARE_WHITESPACE in ASCII
_SPACE: Final = re.compile(r"\s")
_SPARSE: Final = 16  # at most one whitespace character in this many: look at each of them
# Characters kept verbatim: NFKC would expand the ellipsis to three dots, which shifts offsets
# for no gain and hides a Chinese sentence end.
_KEEP: Final = frozenset("…⋯")
_DROP_CATEGORIES: Final = frozenset({"Cf", "Cc"})
# Not a code point, so no character can map to it (see _CharTable.codes).
_UNKNOWN: Final = 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class Normalized:
    """Normalised text plus, for each of its characters, the offset in the original.

    ``offsets`` has ``len(text) + 1`` entries: ``offsets[i]`` is the original position of the
    (single) original character that normalised character ``i`` comes from, and the last entry is
    the original's length.  Use :meth:`original_span` to map a normalised span back.
    """

    text: str
    offsets: tuple[int, ...]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Original ``(start, end)`` covering normalised characters ``start..end-1``."""
        if end <= start:
            position = self.offsets[start]
            return position, position
        # Every normalised character comes from exactly one original character, so the span
        # ends right after the original character of the last one.
        return self.offsets[start], self.offsets[end - 1] + 1


class _CharTable:
    """Lazily built per-character mapping (NFKC → lower → t2s, invisible → "")."""

    def __init__(self) -> None:
        self._converter = opencc.OpenCC("t2s")
        self._lock = threading.Lock()
        self.table: dict[int, str] = {}
        # Characters whose replacement is not exactly one character (needs the slow path).
        self.irregular: set[str] = set()
        self._known: set[str] = set()
        # The fast path: the code point each BMP character maps to, applied to a whole text
        # with one numpy take over its UTF-32 code units (several times faster than
        # str.translate, which calls into Python per character); and the same for ASCII as a
        # bytes.translate table.  Characters not learnt yet, and irregular ones, map to
        # _UNKNOWN, so one test tells whether the slow path is needed.
        self.codes = np.full(0x10000, _UNKNOWN, dtype=np.uint32)
        self.ascii = bytearray(b"\xff" * 256)

    def learn(self, chars: set[str]) -> None:
        """Add the mapping of every character of ``chars`` not seen before."""
        if not chars - self._known:
            return
        with self._lock:  # OpenCC is not known to be thread-safe; mappings before _known
            ordered = sorted(chars - self._known)
            simplified = self._t2s([self._fold(ch) for ch in ordered])
            for ch, out in zip(ordered, simplified, strict=True):
                if out != ch:
                    self.table[ord(ch)] = out
                if len(out) != 1:
                    self.irregular.add(ch)
                elif ord(ch) < 0x10000:
                    self.codes[ord(ch)] = ord(out)
                    if ord(ch) < 0x80 and ord(out) < 0x80:
                        self.ascii[ord(ch)] = ord(out)
                self._known.add(ch)

    @staticmethod
    def _fold(ch: str) -> str:
        if ch in _KEEP or ch.isspace():
            return ch
        if unicodedata.category(ch) in _DROP_CATEGORIES:
            return ""
        return unicodedata.normalize("NFKC", ch).lower()

    def _t2s(self, folded: list[str]) -> list[str]:
        # One OpenCC call for all new characters; the separator keeps them from forming
        # phrases.  Any piece whose length changes keeps its folded form.
        joined = self._converter.convert("\n".join(folded))
        pieces = joined.split("\n")
        if len(pieces) != len(folded):
            return [self._t2s_one(piece) for piece in folded]
        return [p if len(p) == len(f) else f for p, f in zip(pieces, folded, strict=True)]

    def _t2s_one(self, piece: str) -> str:
        out = "".join(self._converter.convert(ch) for ch in piece)
        return out if len(out) == len(piece) else piece


_TABLE = _CharTable()


def _map_known(text: str) -> str | None:
    """The mapped text when every character of ``text`` is a learnt, regular BMP character
    (exactly ``text.translate(_TABLE.table)`` then), else None."""
    if text.isascii():
        folded = text.encode("ascii").translate(_TABLE.ascii)
        return None if b"\xff" in folded else folded.decode("ascii")
    try:
        data = text.encode("utf-32-le")
    except UnicodeEncodeError:  # lone surrogates: left to the general path
        return None
    codes = np.frombuffer(data, dtype=np.uint32)
    if int(codes.max()) > 0xFFFF:
        return None
    mapped = _TABLE.codes[codes]
    if int(mapped.max()) == _UNKNOWN:
        return None
    return mapped.tobytes().decode("utf-32-le")


def _map_characters(text: str) -> tuple[str, np.ndarray | None]:
    """Apply the character table; return the mapped text and its offsets into ``text``
    (None when every character maps to exactly one: the offsets are the positions)."""
    if text:
        known = _map_known(text)
        if known is not None:
            return known, None
    chars = set(text)
    _TABLE.learn(chars)
    if not _TABLE.irregular & chars:
        # Every character is learnt now: the numpy path applies unless one is outside the
        # BMP (str.translate with a dict calls into Python per character, ~5x slower).
        known = _map_known(text)
        if known is not None:
            return known, None
    mapped = text.translate(_TABLE.table)
    if len(mapped) == len(text) and not (_TABLE.irregular and _TABLE.irregular & chars):
        return mapped, None
    return mapped, _expanded_offsets(text, _TABLE.irregular & chars)


def _expanded_offsets(text: str, irregular: set[str]) -> np.ndarray:
    """The offsets of ``text.translate(_TABLE.table)`` into ``text`` when the characters of
    ``irregular`` map to other than one character: each original position once per character
    it maps to, then ``len(text)``. Built in one array from the irregular characters'
    positions (a list of Python ints per character took 50 bytes a character)."""
    table = _TABLE.table
    lengths_of = {ch: len(table.get(ord(ch), ch)) for ch in irregular}
    finder = re.compile("[" + "".join(re.escape(ch) for ch in sorted(irregular)) + "]")
    found = [(match.start(), lengths_of[match.group()]) for match in finder.finditer(text)]
    positions = np.array([position for position, _ in found], dtype=np.int64)
    lengths = np.array([length for _, length in found], dtype=np.int64)
    extra = lengths - 1
    starts = positions + np.cumsum(extra) - extra  # where each one's output begins
    # Steps between consecutive offsets: 1, 0 within an expansion, more after dropped ones.
    steps = np.ones(len(text) + int(extra.sum()) + 1, dtype=np.int64)
    steps[0] = 0
    np.add.at(steps, starts[lengths == 0], 1)
    many = lengths >= 2
    counts = lengths[many] - 1
    firsts = starts[many] + 1
    steps[np.repeat(firsts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())] = 0
    return np.cumsum(steps, out=steps)


def _whitespace_replacement(text: str, start: int, end: int) -> str:
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    run = text[start:end]
    newlines = run.count("\n") + run.count("\r") - run.count("\r\n")
    cjk = bool(_CJK_CHAR.match(before) or _CJK_CHAR.match(after)) if before and after else False
    if not before or not after:
        return ""
    if newlines == 1 and _IDEOGRAPH_CHAR.match(before) and _IDEOGRAPH_CHAR.match(after):
        return ""  # a line wrapped inside a Chinese sentence (PDF text)
    if newlines >= 2 or (newlines and cjk):
        return "\n"
    if cjk and bool(_CJK_CHAR.match(before)) and bool(_CJK_CHAR.match(after)):
        return ""
    return " "


def _occurrences(text: str, needle: str) -> Iterator[int]:
    position = text.find(needle)
    while position >= 0:
        yield position
        position = text.find(needle, position + 1)


def _whitespace_runs(text: str) -> Iterator[tuple[int, int]]:
    """The spans of ``_WHITESPACE_RUN.finditer(text)``."""
    candidates: set[int] | list[int]
    if not text.isascii() and _CJK_CHAR.search(text):
        # Chinese text has little whitespace: try the pattern only where it can start (at
        # whitespace), not at every character; with much whitespace the plain scan is faster.
        candidates = [match.start() for match in _SPACE.finditer(text)]
        if len(candidates) * _SPARSE > len(text):
            yield from (match.span() for match in _WHITESPACE_RUN.finditer(text))
            return
    else:
        candidates = {0, len(text) - 1}
        for pair in _PAIRS:
            candidates.update(_occurrences(text, pair))
        # In ASCII text a few substring tests (memchr) replace the regex scan when, as usual,
        # none of the rare characters is there.
        if not text.isascii() or any(ch in text for ch in _ASCII_RARE_WHITESPACE):
            for match in _RARE_WHITESPACE.finditer(text):
                candidates.update((match.start() - 1, match.start()))
    reach = 0
    for position in sorted(candidates):
        if position >= reach:
            found = _WHITESPACE_RUN.match(text, position)
            if found:
                reach = found.end()
                yield found.span()


def _join_single_breaks(text: str) -> str:
    """``_LATIN_SINGLE.sub(" ", text)``.  In ASCII text the pattern can only match at a line
    break or a rare whitespace character; when those are few, each is tried on its own
    (every match is that one character, decided on the unchanged text, as sub does)."""
    if not text.isascii():
        return _LATIN_SINGLE.sub(" ", text)
    positions: list[int] = []
    for ch in "\n" + _ASCII_RARE_WHITESPACE:
        positions.extend(_occurrences(text, ch))
        if len(positions) * _SPARSE > len(text):
            return _LATIN_SINGLE.sub(" ", text)
    match = _LATIN_SINGLE.match
    hits = [position for position in sorted(positions) if match(text, position)]
    if not hits:
        return text
    pieces: list[str] = []
    cursor = 0
    for position in hits:
        pieces.append(text[cursor:position])
        cursor = position + 1
    pieces.append(text[cursor:])
    return " ".join(pieces)


def _fold_whitespace(text: str, offsets: np.ndarray | None) -> tuple[str, np.ndarray | None]:
    """Fold whitespace runs; a run's replacement keeps the offsets of the run's first
    characters, so folding only ever deletes offsets (built only when something changed)."""
    pieces: list[str] = []
    dropped: list[tuple[int, int]] = []
    cursor = 0
    for start, end in _whitespace_runs(text):
        replacement = _whitespace_replacement(text, start, end)
        if replacement == text[start:end]:
            continue
        pieces.append(text[cursor:start])
        pieces.append(replacement)
        dropped.append((start + len(replacement), end))
        cursor = end
    if cursor == 0:
        return text, offsets
    pieces.append(text[cursor:])
    keep = np.ones(len(text) + 1, dtype=bool)
    for start, end in dropped:
        keep[start:end] = False
    kept = np.flatnonzero(keep) if offsets is None else offsets[keep]
    return "".join(pieces), kept


def normalize_with_offsets(text: str) -> tuple[str, np.ndarray | None]:
    """:func:`normalize` for :func:`detection.analyze`: the offsets as an int64 array with
    ``len(text) + 1`` entries, or None when normalised position i is original position i
    (building millions of Python ints per archive was a tenth of ``analyze()``)."""
    mapped, offsets = _map_characters(text)
    return _fold_whitespace(_join_single_breaks(mapped), offsets)


# Texts longer than this are normalised again at each use instead of remembered: the cache
# would hold a large text's normalised copy and offsets (9 bytes a character, 190 MB for a
# 20 MB text) in the process long after its check, for a second or two of saved time.
CACHED_CHARS = 1_000_000


def normalized_once(text: str) -> tuple[str, np.ndarray | None]:
    """:func:`normalize_with_offsets`, remembered for the last few texts of up to
    ``CACHED_CHARS`` characters: word-level refinement and the disguised-copy stage read the
    same query and source texts again (callers must not modify the offsets)."""
    if len(text) > CACHED_CHARS:
        return normalize_with_offsets(text)
    return _normalized_cached(text)


@lru_cache(maxsize=8)
def _normalized_cached(text: str) -> tuple[str, np.ndarray | None]:
    return normalize_with_offsets(text)


def original_spans(
    offsets: np.ndarray | None, spans: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """:meth:`Normalized.original_span` of every non-empty span, for the offsets of
    :func:`normalize_with_offsets`."""
    if offsets is None or not spans:
        return list(spans)
    bounds = np.array(spans, dtype=np.int64)
    starts = offsets[bounds[:, 0]].tolist()
    ends = (offsets[bounds[:, 1] - 1] + 1).tolist()
    return list(zip(starts, ends, strict=True))


def normalize(text: str) -> Normalized:
    """Fold width, compatibility forms, case, traditional characters and whitespace.

    Returns the normalised text and, per normalised character, its offset in ``text`` (see
    :class:`Normalized`).  Deterministic and idempotent on its own output's *text*.
    """
    folded, offsets = normalize_with_offsets(text)
    if offsets is None:
        return Normalized(folded, tuple(range(len(folded) + 1)))
    return Normalized(folded, tuple(offsets.tolist()))
