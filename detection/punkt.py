"""NLTK Punkt sentence boundaries, decided by Punkt, at a fraction of its cost.

``nltk.tokenize.punkt.PunktSentenceTokenizer.span_tokenize`` (Kiss & Strunk 2006, as
implemented by NLTK) finds candidate ends with one regex (``.``, ``?`` or ``!`` followed by
whitespace and a token, or by other punctuation), builds a small context per candidate (the
word carrying the mark, the mark, what follows) and runs its whole tokenise-and-annotate
pipeline on that context (``text_contains_sentbreak``); then it moves closing quotes and
brackets onto the sentence they end.  The per-candidate pipeline was half of English
``analyze()``.

:func:`punkt_spans` runs the same steps — NLTK's own candidate regex, the same choice of the
word before a candidate (including NLTK's treatment of overlapping candidates such as ``!!!``)
and the same realignment with NLTK's own pattern — and asks NLTK for every decision except two
kinds that the untrained model provably always answers with "boundary":

- the mark is ``?`` or ``!``: Punkt makes it a token of its own, which its first pass marks as a
  sentence break and its second pass never revisits (it only revisits period-final tokens);
- the mark is ``.`` after a purely alphabetic word of two or more letters: the token
  ``word.`` is a sentence break in the first pass (no abbreviations are known), and the second
  pass only reconsiders known collocations, abbreviations, ellipses, initials (one letter) and
  numbers.

Both shortcuts hold only for a model without learnt abbreviations, collocations, sentence
starters or orthographic context; :func:`punkt_spans` uses them only then.  A test compares
with ``span_tokenize`` on generated text; docs/detection.md reports the agreement on the dev
sets.
"""

from __future__ import annotations

import gc
import re
from functools import cache
from typing import Any, Final

__all__ = ["punkt_spans"]

# NLTK's _get_last_whitespace_index looks for string.whitespace; normalised text only has " ",
# anything else goes to NLTK unchanged.
# Spelled out: a positive class is searched much faster than [^\S ].
_OTHER_WHITESPACE: Final = re.compile(
    "[\t-\r\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)
# The characters re_boundary_realignment can start with (a cheap test before calling it).
_REALIGNED: Final = frozenset("\"')]}\u2018\u2019\u201c\u201d\xab\xbb")


@cache
def _tokenizer() -> Any:
    """NLTK's untrained Punkt, imported on first use (importing nltk takes about a second).

    Importing nltk leaves some 60,000 more objects for the cyclic garbage collector to walk
    at every full collection, which made allocation-heavy code (tokenising, analyze(), the
    database writes) about a third slower for the rest of the process; so the objects alive
    at this point (modules and their tables, normally) are moved out of the collector's
    reach with :func:`gc.freeze` — any of them that later became cyclic garbage would not be
    reclaimed, a bounded, one-time cost.
    """
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    tokenizer = PunktSentenceTokenizer()
    gc.freeze()
    return tokenizer


@cache
def _untrained(tokenizer: Any) -> bool:
    """Whether ``tokenizer`` has learnt nothing (checked once: ours is never trained)."""
    params = tokenizer._params
    # ortho_context is a defaultdict that NLTK's own lookups fill with zeros.
    return not (
        params.abbrev_types
        or params.collocations
        or params.sent_starters
        or any(params.ortho_context.values())
    )


def _decision_key(word: str, match: re.Match[str]) -> tuple[str, str, str] | None:
    """What the untrained model's decision depends on, or None when that is not known.

    The decision depends on the context's tokens before the mark (``word``), the mark, and the
    token after it only through "is it one of ;:,.!?" and the case of its first letter (the
    learnt tables are empty).  A purely alphabetic next token is that one token; other tokens
    after the mark are not summarised.
    """
    following = match.group("next_tok")
    if following is None:
        return word, match.group(), match.group("after_tok")  # one punctuation character
    if following.isalpha():
        first = following[0]
        case = "upper" if first.isupper() else "lower" if first.islower() else "other"
        return word, match.group(), case
    return None


# Keyed by _decision_key, or by the whole context when that is None: the context is all the
# untrained model sees, and contexts such as "p. 98)." recur across documents (without the
# exact key a third of the NLTK calls of a second pass over the dev data were repeats).
_decisions: dict[tuple[str, str, str] | str, bool] = {}
_DECISIONS_LIMIT: Final = 1 << 16


def _is_break(tokenizer: Any, word: str, match: re.Match[str], untrained: bool) -> bool:
    """Punkt's decision for the candidate ``match`` carried by ``word`` (see module doc)."""
    mark = match.group()
    context = word + mark + match.group("after_tok")
    if not untrained:
        return bool(tokenizer.text_contains_sentbreak(context))
    if mark != "." or (len(word) >= 2 and word.isalpha()):
        return True
    key = _decision_key(word, match) or context
    decision = _decisions.get(key)
    if decision is None:
        decision = bool(tokenizer.text_contains_sentbreak(context))
        if len(_decisions) >= _DECISIONS_LIMIT:
            _decisions.clear()  # bounded memory; decisions are recomputed
        _decisions[key] = decision
    return decision


@cache
def _candidate_pattern(tokenizer: Any) -> re.Pattern[str]:
    # NLTK's own candidate regex, compiled by re instead of the third-party regex module behind
    # NLTK's timeout wrapper (several times faster here).  The two differ only in which
    # characters \s matches, and punkt_spans only runs it on text whose only whitespace is " ".
    return re.compile(tokenizer._lang_vars.period_context_re().pattern, re.VERBOSE | re.UNICODE)


def _candidates(text: str, tokenizer: Any) -> list[tuple[re.Match[str], int]]:
    """NLTK's ``_match_potential_end_contexts``: the candidates it keeps, each with the start
    of the word before it (the word ends where the candidate starts)."""
    kept: list[tuple[re.Match[str], int]] = []
    previous: re.Match[str] | None = None
    previous_start = previous_stop = 0
    rfind = text.rfind
    for match in _candidate_pattern(tokenizer).finditer(text):
        start = match.start()
        space = rfind(" ", previous_stop, start)
        # NLTK treats a space at the very start of the gap like no space at all.
        word_start = space + 1 if space > previous_stop else previous_start
        if previous is not None and previous_stop <= word_start:
            kept.append((previous, previous_start))
        previous, previous_start, previous_stop = match, word_start, start
    if previous is not None:
        kept.append((previous, previous_start))
    return kept


def _slices(text: str, tokenizer: Any) -> list[tuple[int, int]]:
    """NLTK's ``_slices_from_text``."""
    untrained = _untrained(tokenizer)
    slices: list[tuple[int, int]] = []
    last_break = 0
    for match, word_start in _candidates(text, tokenizer):
        start = match.start()
        word = text[word_start:start]
        # The two shortcuts of the module docstring, inline: most candidates are one of them.
        if (untrained and (text[start] != "." or (len(word) >= 2 and word.isalpha()))) or _is_break(
            tokenizer, word, match, untrained
        ):
            slices.append((last_break, start + 1))
            following = match.start("next_tok")
            last_break = following if following >= 0 else start + 1
    slices.append((last_break, len(text.rstrip())))
    return slices


def _realigned(text: str, slices: list[tuple[int, int]], tokenizer: Any) -> list[tuple[int, int]]:
    """NLTK's ``_realign_boundaries``: closing quotes and brackets join the sentence before."""
    pattern = tokenizer._lang_vars.re_boundary_realignment
    spans: list[tuple[int, int]] = []
    length = len(text)
    realign = 0
    for (start, stop), (following, following_stop) in zip(
        slices, slices[1:] + [(length, length)], strict=True
    ):
        start += realign
        realign = 0
        # The last slice is followed by the empty text at the end, which never realigns.
        if text[following : following + 1] in _REALIGNED:
            match = pattern.match(text[following:following_stop])
            if match:
                spans.append((start, following + len(match.group(0).rstrip())))
                realign = match.end()
                continue
        if min(stop, length) > start:
            spans.append((start, stop))
    return spans


def punkt_spans(text: str) -> list[tuple[int, int]]:
    """``list(PunktSentenceTokenizer().span_tokenize(text))``, computed faster."""
    tokenizer = _tokenizer()
    # Every character of _OTHER_WHITESPACE is unprintable: printable text skips the search.
    if not text.isprintable() and _OTHER_WHITESPACE.search(text):
        return list(tokenizer.span_tokenize(text))
    return _realigned(text, _slices(text, tokenizer), tokenizer)
