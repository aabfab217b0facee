"""The shipped, versioned IDF model that picks Low-IDF-Sig antecedents.

Low-IDF-Sig takes "the n words with the lowest IDF from an external IDF table" as antecedents.
Our table is ``data/antecedents.tsv``: for Chinese and English, the most frequent words of the
``wordfreq`` package (version pinned in requirements.txt; frequency is the monotone inverse of
IDF, so "lowest IDF" = "highest frequency"), kept only when our own normaliser and tokeniser
leave the word as one token, ranked.  It is a file in the repository rather than a live
``wordfreq`` call so that the antecedents — and therefore every stored feature — cannot change
when a package is upgraded; :data:`IDF_VERSION` names it and ``model_version`` includes it.
Regenerate with ``python -m detection.idf > detection/data/antecedents.tsv`` and bump the version.

The same file lists the few *skipped* words (``skip`` rows): the seed skips only "some articles
and prepositions" when building chains, because short sentences need their function words.
We skip English articles and the interchangeable place prepositions, and the Chinese
structural particles 的/地/得/了/着 that copy editors drop or swap freely (the 04-light
obfuscation drops particles).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Final

__all__ = ["IdfModel", "load_idf_model", "IDF_VERSION"]

IDF_VERSION: Final = "wordfreq-3.1.1-top500-v1"
_LANGUAGES: Final = ("zh", "en")
_TOP: Final = 500
_SKIP: Final = {
    "en": ("a", "an", "the", "in", "on", "at"),
    "zh": ("的", "地", "得", "了", "着"),
}


@dataclass(frozen=True, slots=True)
class IdfModel:
    """Ranked most-common words per language plus the skipped stop words."""

    version: str
    ranked: dict[str, tuple[str, ...]]
    skip: frozenset[str]
    digest: str

    def antecedents(self, per_language: int) -> frozenset[str]:
        """The ``per_language`` lowest-IDF non-skipped words of every language."""
        chosen: set[str] = set()
        for words in self.ranked.values():
            chosen.update([w for w in words if w not in self.skip][:per_language])
        return frozenset(chosen)


@cache
def load_idf_model() -> IdfModel:
    """Read the shipped table (cached; the file is part of the package)."""
    raw = resources.files("detection").joinpath("data/antecedents.tsv").read_text("utf-8")
    ranked: dict[str, list[str]] = {}
    skip: set[str] = set()
    for line in raw.splitlines():
        if not line or line.startswith("#"):
            continue
        kind, language, word = line.split("\t")
        if kind == "skip":
            skip.add(word)
        else:
            ranked.setdefault(language, []).append(word)
    digest = hashlib.blake2b(raw.encode("utf-8"), digest_size=6).hexdigest()
    frozen = {language: tuple(words) for language, words in ranked.items()}
    return IdfModel(IDF_VERSION, frozen, frozenset(skip), digest)


def _generate() -> str:
    """Build the table from ``wordfreq`` (run by hand, never at run time)."""
    import wordfreq

    from detection.normalize import normalize
    from detection.words import tokenize

    lines = [f"# {IDF_VERSION}: kind<TAB>language<TAB>word, most frequent first"]
    for language in _LANGUAGES:
        for word in _SKIP[language]:
            lines.append(f"skip\t{language}\t{word}")
    for language in _LANGUAGES:
        kept = 0
        for word in wordfreq.top_n_list(language, _TOP * 2):
            tokens = [t.text for t in tokenize(normalize(word).text)]
            if tokens != [word] or word.isdigit() or kept >= _TOP:
                continue
            lines.append(f"rank\t{language}\t{word}")
            kept += 1
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(_generate(), end="")
