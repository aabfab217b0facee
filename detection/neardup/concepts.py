"""Words → concepts for DWDCS: synonyms merged into one concept.

English: WordNet through NLTK's reader (offline: Debian's ``wordnet-base`` exposed to NLTK by
``scripts/wordnet.sh``; pass ``nltk_data`` or set ``NLTK_DATA``).  A word's concept is its
first synset (WordNet orders senses by corpus frequency), so synonyms that share their most
frequent sense — "car", "automobile" → ``car.n.01`` — become one concept.  The seed merges
phrase concepts whose synonym sets overlap above a threshold; with single-word concepts the
shared first synset is that overlap at its strictest.

Chinese: no thesaurus ships with an installed package (jieba's dictionary has no synonyms and
WordNet is English only), so the project ships ``data/zh_synonyms.txt``, a small hand-written
Cilin-style table (one concept per line) of words news editors swap.  Words outside the table
are their own concept.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from typing import Any

from detection.neardup.base import NearDupError
from detection.neardup.text import is_han

__all__ = ["ConceptMapper", "load_wordnet", "load_zh_synonyms"]


def load_zh_synonyms() -> dict[str, str]:
    """word → concept name from the shipped table (first group wins for a repeated word)."""
    table: dict[str, str] = {}
    text = resources.files("detection.neardup").joinpath("data/zh_synonyms.txt").read_text("utf-8")
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        group = line.split()
        for word in group:
            table.setdefault(word, group[0])
    return table


@lru_cache(maxsize=4)
def load_wordnet(nltk_data: str | None = None) -> Any:
    """NLTK's WordNet reader from ``nltk_data`` (a folder holding ``corpora/wordnet``) or from
    NLTK's own search path (``$NLTK_DATA``).

    NLTK only opens corpora under ``nltk.data.path``, so a given folder is added to it.  Raises
    NearDupError naming the fix when the data is missing (nothing is ever downloaded).
    """
    import nltk

    if nltk_data and nltk_data not in nltk.data.path:
        nltk.data.path.insert(0, nltk_data)
    from nltk.corpus import wordnet

    reader: Any = wordnet
    try:
        reader.synsets("test")
    except (LookupError, OSError) as error:
        raise NearDupError(
            "WordNet is not available to NLTK: run scripts/wordnet.sh and set "
            f"NLTK_DATA (now {os.environ.get('NLTK_DATA')!r}) or pass nltk_data ({error})"
        ) from error
    return reader


class ConceptMapper:
    """Maps a word to its concept name, with a cache (WordNet look-ups are slow)."""

    def __init__(self, nltk_data: str | None = None, use_wordnet: bool = True) -> None:
        self._zh = load_zh_synonyms()
        self._nltk_data = nltk_data
        self._use_wordnet = use_wordnet
        self._cache: dict[str, str] = {}

    def concept(self, word: str) -> str:
        found = self._cache.get(word)
        if found is None:
            found = self._lookup(word)
            self._cache[word] = found
        return found

    def _lookup(self, word: str) -> str:
        if is_han(word):
            return self._zh.get(word, word)
        if not self._use_wordnet or not word.isalpha():
            return word
        synsets = load_wordnet(self._nltk_data).synsets(word)
        return synsets[0].name() if synsets else word
