"""Harder obfuscations of a PAN set's verbatim copies, in the PAN layout.

A robustness check of the word-chain stage (docs/detection.md, "Harder obfuscations"), not a
tuning target:

    .venv/bin/python -m benchmarks.harder ../shared/data/zh-reuse-dev OUT [--seed 0]
    NLTK_DATA=var/nltk_data .venv/bin/python -m benchmarks.harder \\
        ../shared/data/pan13-verbatim-dev OUT [--seed 0]
    .venv/bin/python -m detection pan OUT/pairs OUT/src OUT/susp DET
    .venv/bin/python -m detection evaluate OUT DET

Every pair of the set's verbatim folder is written once per kind (one folder each): its
suspicious document with every truth passage rewritten in place by a seeded RNG, and the
truth's offsets recomputed. The sources are copied unchanged. The language follows the set:

Chinese (zh-reuse-dev, the 39 pairs of ``02-none``):

- ``02-heavy``: 15 % of the Han words replaced by a word of the passage, 7.5 % dropped,
  7.5 % swapped with the next;
- ``03-punct``: "。" → "，" and line breaks removed (sentences merged);
- ``04-split``: half of the "，" → "。" (sentences split);
- ``05-tradlight``: ``heavy`` at about half the rate, then traditional characters (OpenCC)
  and half-width commas;
- ``06-wrap``: the passage hard-wrapped every 25 characters, like PDF text.

English (pan13-verbatim-dev, the first 120 pairs of ``02-no-obfuscation``; needs WordNet,
from ``--nltk-data`` or ``$NLTK_DATA``, see ``scripts/wordnet.sh``):

- ``02-random``: PAN's random obfuscation: per word, 10 % replaced by a WordNet synonym
  (words over three letters; else by a word of the passage), 5 % dropped, 5 % swapped with
  the next, 5 % get a word of the passage inserted before them;
- ``03-synonym``: 20 % of the words over three letters replaced by a WordNet synonym;
- ``04-merge``: ". X" → "; x" (sentences merged);
- ``05-wrap``: hard-wrapped at 70 columns;
- ``06-heavy``: ``random`` at twice the rates (about half the words touched).

Pair ``n`` of a kind draws from ``random.Random(seed * 1_000_000 + n)``; seed 0 is the set
measured in docs/detection.md.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import rjieba
from opencc import OpenCC

from detection.errors import DetectionError
from detection.evaluation import Span, read_features
from detection.neardup.base import NearDupError
from detection.neardup.concepts import load_wordnet
from detection.pan import output_name, read_pairs, read_text

Disguise = Callable[[str, random.Random], str]

_HAN = re.compile("[\u4e00-\u9fff]")
_LATIN_TOKEN = re.compile(r"[A-Za-z]+|[^A-Za-z]+")
_LATIN_WORD = re.compile(r"[A-Za-z]+$")
_SENTENCE_END = re.compile(r"([a-z])\. ([A-Z])")
_SEEDS_PER_RUN = 1_000_000


@dataclass(frozen=True)
class _Set:
    """Which folder of a PAN set is rewritten, how many of its pairs, and how."""

    folder: str
    pairs: int | None
    language: str


_SETS = (_Set("02-none", None, "zh"), _Set("02-no-obfuscation", 120, "en"))


def _han_edits(text: str, rng: random.Random, rate: float) -> str:
    """Han words replaced (``rate``), dropped (``rate``/2) or swapped with the next (``rate``/2)."""
    words = list(rjieba.cut(text))
    vocabulary = [w for w in words if _HAN.match(w)]
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if _HAN.match(word):
            draw = rng.random()
            if draw < rate:
                out.append(rng.choice(vocabulary))
                i += 1
                continue
            if draw < rate * 1.5:
                i += 1
                continue
            if draw < rate * 2 and i + 1 < len(words) and _HAN.match(words[i + 1]):
                out += [words[i + 1], word]
                i += 2
                continue
        out.append(word)
        i += 1
    return "".join(out)


def _wrap_every(text: str, width: int) -> str:
    """Line breaks removed, then one after every ``width`` characters."""
    flat = text.replace("\n", "")
    return "\n".join(flat[i : i + width] for i in range(0, len(flat), width))


def _chinese_kinds() -> dict[str, Disguise]:
    to_traditional = OpenCC("s2t")
    return {
        "02-heavy": lambda t, r: _han_edits(t, r, 0.15),
        "03-punct": lambda t, r: t.replace("。", "，").replace("\n", ""),
        "04-split": lambda t, r: re.sub("，", lambda m: "。" if r.random() < 0.5 else "，", t),
        "05-tradlight": lambda t, r: to_traditional.convert(_han_edits(t, r, 0.08)).replace(
            "，", ","
        ),
        "06-wrap": lambda t, r: _wrap_every(t, 25),
    }


def _synonym(word: str, rng: random.Random, wordnet: Any) -> str | None:
    """A WordNet synonym of ``word`` (any sense, one word, same capital), or None."""
    lemmas = {
        lemma.name().replace("_", " ")
        for synset in wordnet.synsets(word.lower())
        for lemma in synset.lemmas()
    }
    lemmas.discard(word.lower())
    choices = sorted(lemma for lemma in lemmas if lemma.isalpha())
    if not choices:
        return None
    chosen: str = rng.choice(choices)
    return chosen.capitalize() if word[:1].isupper() else chosen


def _latin_edits(
    text: str, rng: random.Random, rate: float, wordnet: Any, synonyms_only: bool = False
) -> str:
    """PAN-style random word operations; ``synonyms_only`` keeps just the replacements."""
    tokens = _LATIN_TOKEN.findall(text)
    vocabulary = [t for t in tokens if _LATIN_WORD.match(t)]
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if _LATIN_WORD.match(token):
            draw = rng.random()
            if draw < rate:
                other = _synonym(token, rng, wordnet) if len(token) > 3 else None
                out.append(other or (token if synonyms_only else rng.choice(vocabulary)))
                i += 1
                continue
            if not synonyms_only:
                if draw < rate * 1.5:  # the word and the space after it dropped
                    i += 2
                    continue
                if draw < rate * 2 and i + 2 < len(tokens) and _LATIN_WORD.match(tokens[i + 2]):
                    out += [tokens[i + 2], tokens[i + 1], token]
                    i += 3
                    continue
                if draw < rate * 2.5:
                    out += [rng.choice(vocabulary), " "]
        out.append(token)
        i += 1
    return "".join(out)


def _wrap_at(text: str, columns: int) -> str:
    """Whitespace folded, then lines of whole words of at most ``columns`` characters."""
    lines, line = [], ""
    for word in re.sub(r"\s+", " ", text).split(" "):
        if len(line) + len(word) + 1 > columns:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines)


def _english_kinds(nltk_data: str | None) -> dict[str, Disguise]:
    wordnet = load_wordnet(nltk_data)
    return {
        "02-random": lambda t, r: _latin_edits(t, r, 0.10, wordnet),
        "03-synonym": lambda t, r: _latin_edits(t, r, 0.20, wordnet, synonyms_only=True),
        "04-merge": lambda t, r: _SENTENCE_END.sub(lambda m: f"{m[1]}; {m[2].lower()}", t),
        "05-wrap": lambda t, r: _wrap_at(t, 70),
        "06-heavy": lambda t, r: _latin_edits(t, r, 0.20, wordnet),
    }


def rewrite(
    text: str, cases: list[Span], disguise: Disguise, rng: random.Random
) -> tuple[str, list[Span]]:
    """``text`` with every case's passage disguised, and the cases at their new offsets.

    Cases are taken in order of their start; one overlapping an earlier case is left out."""
    out: list[str] = []
    moved: list[Span] = []
    done = 0
    for case in sorted(cases, key=lambda c: c.this_start):
        if case.this_start < done:
            continue
        out.append(text[done : case.this_start])
        new = disguise(text[case.this_start : case.this_end], rng)
        start = sum(map(len, out))
        moved.append(replace(case, this_start=start, this_end=start + len(new)))
        out.append(new)
        done = case.this_end
    out.append(text[done:])
    return "".join(out), moved


def _truth_xml(name: str, source: str, cases: list[Span]) -> str:
    lines = [f'<document reference="{name}">']
    lines += [
        f'<feature name="plagiarism" this_offset="{c.this_start}" '
        f'this_length="{c.this_end - c.this_start}" source_reference="{source}" '
        f'source_offset="{c.source_start}" source_length="{c.source_end - c.source_start}" />'
        for c in cases
    ]
    return "\n".join([*lines, "</document>"]) + "\n"


def _which_set(data: Path) -> _Set:
    for candidate in _SETS:
        if (data / candidate.folder / "pairs").is_file():
            return candidate
    folders = " or ".join(f"{s.folder}/pairs" for s in _SETS)
    raise DetectionError(f"{data}: no {folders}; pass zh-reuse-dev or pan13-verbatim-dev")


def build(data: Path, out: Path, seed: int = 0, nltk_data: str | None = None) -> str:
    """Write the set built from ``data`` into ``out`` (replaced); return its language."""
    which = _which_set(data)
    kinds = _chinese_kinds() if which.language == "zh" else _english_kinds(nltk_data)
    pairs = read_pairs(data / which.folder / "pairs")[: which.pairs]
    shutil.rmtree(out, ignore_errors=True)
    (out / "susp").mkdir(parents=True)
    shutil.copytree(data / "src", out / "src")
    every: list[str] = []
    for kind, disguise in kinds.items():
        (out / kind).mkdir()
        lines: list[str] = []
        for number, pair in enumerate(pairs):
            suspicious, source = pair
            cases = read_features(data / which.folder / output_name(*pair), pair)
            rng = random.Random(seed * _SEEDS_PER_RUN + number)
            text, moved = rewrite(read_text(data / "susp" / suspicious), cases, disguise, rng)
            name = f"suspicious-document{kind[:2]}{number:03d}.txt"
            (out / "susp" / name).write_text(text, encoding="utf-8", newline="")
            (out / kind / output_name(name, source)).write_text(
                _truth_xml(name, source, moved), encoding="utf-8"
            )
            lines.append(f"{name} {source}")
        (out / kind / "pairs").write_text("\n".join(lines) + "\n", encoding="utf-8")
        every += lines
    (out / "pairs").write_text("\n".join(every) + "\n", encoding="utf-8")
    return which.language


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="zh-reuse-dev or pan13-verbatim-dev")
    parser.add_argument("out", type=Path, help="output folder (replaced)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--nltk-data", help="folder holding corpora/wordnet (English only)")
    arguments = parser.parse_args()
    try:
        language = build(arguments.data, arguments.out, arguments.seed, arguments.nltk_data)
    except (DetectionError, NearDupError) as error:
        parser.error(str(error))
    print("written", arguments.out, f"({language})")


if __name__ == "__main__":
    main()
