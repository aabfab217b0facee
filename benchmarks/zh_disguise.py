"""Heavily disguised Chinese copies in the PAN layout, built from zh-reuse-dev prose.

A development set for the disguised-copy stage (:mod:`detection.disguise`), not a test:

    .venv/bin/python -m benchmarks.zh_disguise /work/shared/data/zh-reuse-dev OUT [--seed 1]
    .venv/bin/python -m detection pan OUT/pairs OUT/src OUT/susp DET
    .venv/bin/python -m detection evaluate OUT DET

Every suspicious document is an unrelated host article (a source of zh-reuse-dev) with one
passage of its source inserted between two paragraphs, disguised in one of these ways (one
folder each, seeded RNG, offsets of the truth recomputed after every edit):

- ``02-random``: random word operations (PAN's random obfuscation) at a degree drawn from
  0.2-0.5: each word is, with that probability, replaced by a Cilin synonym (or a word of the
  document), dropped, swapped with the next or preceded by an inserted word of the document;
- ``03-paraphrase``: thesaurus paraphrase (half the words with a Cilin synonym replaced) and
  the clauses of each sentence reordered;
- ``04-summary``: a long source span (8-16 sentences) condensed to half of its
  sentences, each compressed to its leading clauses (extractive, compressed summary);
- ``05-traditional``: random operations at 0.2-0.3, then traditional characters (OpenCC);
- ``01-no-plagiarism``: the host article paired with an unrelated source.

The held-out Chinese sets are built differently: use this set to find what the method
misses, not to fit thresholds to it. The replacements are Cilin synonyms, the thesaurus the
detector folds with; ``--thesaurus related`` draws them from the other synonym groups of a
word's Cilin fine class instead, words the detector does not fold, to show how much the
figures owe to generator and detector sharing one thesaurus.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import rjieba
from opencc import OpenCC

from detection.lexicon import cilin_groups
from detection.pan import read_text

_SENTENCE = re.compile(r"[^。！？\n]+[。！？]?")
_CLAUSE = re.compile(r"[^，；。！？]+[，；]?")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_PER_KIND = 40


def _synonyms(thesaurus: str = "cilin") -> dict[str, list[str]]:
    """Word → the words that may replace it: the other members of its Cilin synonym group
    (``cilin``), or (``related``) the words of the other synonym groups of its Cilin fine
    class (the first five characters of the code), near words the detector's folding keeps
    apart: a stand-in for a writer, or a held-out set, using another thesaurus."""
    groups: dict[str, list[str]] = {}
    for word, code in cilin_groups().items():
        groups.setdefault(code, []).append(word)
    if thesaurus == "related":
        classes: dict[str, list[str]] = {}
        for code in groups:
            classes.setdefault(code[:5], []).append(code)
        return {
            w: [o for other in classes[code[:5]] if other != code for o in groups[other]]
            for code, members in groups.items()
            if len(classes[code[:5]]) > 1
            for w in members
        }
    return {
        w: [o for o in members if o != w]
        for members in groups.values()
        if len(members) > 1
        for w in members
    }


def _random_edits(text: str, rng: random.Random, degree: float, synonyms: dict) -> str:
    """PAN-style random obfuscation of ``text`` at ``degree`` (share of words touched)."""
    words = list(rjieba.cut(text))
    vocabulary = [w for w in words if _HAN.match(w)]
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if not _HAN.match(word) or rng.random() >= degree:
            out.append(word)
            i += 1
            continue
        operation = rng.randrange(4)
        if operation == 0:
            out.append(rng.choice(synonyms.get(word) or vocabulary))
        elif operation == 1:
            pass  # dropped
        elif operation == 2 and i + 1 < len(words):
            out += [words[i + 1], word]
            i += 1
        else:
            out += [rng.choice(vocabulary), word]
        i += 1
    return "".join(out)


def _paraphrase(text: str, rng: random.Random, synonyms: dict) -> str:
    """Half the words with a synonym replaced, the clauses of each sentence shuffled."""
    words = [
        rng.choice(synonyms[w]) if w in synonyms and rng.random() < 0.5 else w
        for w in rjieba.cut(text)
    ]
    sentences = []
    for sentence in _SENTENCE.findall("".join(words)):
        end = sentence[-1] if sentence[-1] in "。！？" else ""
        clauses = [c.rstrip("，；") for c in _CLAUSE.findall(sentence.rstrip("。！？"))]
        rng.shuffle(clauses)
        sentences.append("，".join(c for c in clauses if c) + end)
    return "".join(sentences)


def _summary(sentences: list[str], rng: random.Random) -> str:
    """Half the sentences, in order, each cut to its first one or two clauses."""
    chosen = sorted(rng.sample(range(len(sentences)), max(2, len(sentences) // 2)))
    out = []
    for number in chosen:
        clauses = [c.rstrip("，；。！？") for c in _CLAUSE.findall(sentences[number])]
        out.append("，".join(clauses[: rng.randint(1, 2)]) + "。")
    return "".join(out)


def _span(text: str, rng: random.Random, least: int, most: int) -> tuple[int, int] | None:
    """Character span of ``least..most`` consecutive sentences of ``text``."""
    found = [m.span() for m in _SENTENCE.finditer(text) if _HAN.search(m.group())]
    if len(found) < least:
        return None
    count = rng.randint(least, min(most, len(found)))
    first = rng.randrange(len(found) - count + 1)
    return found[first][0], found[first + count - 1][1]


def _insert(host: str, passage: str, rng: random.Random) -> tuple[str, int]:
    """``host`` with ``passage`` as a paragraph between two of its paragraphs, and its offset."""
    breaks = [m.end() for m in re.finditer("\n", host)] or [len(host)]
    at = rng.choice(breaks)
    head = host[:at] if host[:at].endswith("\n") or not at else host[:at] + "\n"
    return head + passage + "\n" + host[at:], len(head)


def _feature(offset: int, length: int, source: str, source_span: tuple[int, int]) -> str:
    return (
        f'<feature name="plagiarism" type="artificial" this_offset="{offset}" '
        f'this_length="{length}" source_reference="{source}" '
        f'source_offset="{source_span[0]}" source_length="{source_span[1] - source_span[0]}" />'
    )


def build(data: Path, out: Path, seed: int, thesaurus: str = "cilin") -> None:
    """Write the set into ``out`` (replaced); ``thesaurus``: see :func:`_synonyms`."""
    shutil.rmtree(out, ignore_errors=True)
    (out / "susp").mkdir(parents=True)
    shutil.copytree(data / "src", out / "src")
    names = sorted(p.name for p in (data / "src").iterdir())
    texts = {n: read_text(data / "src" / n) for n in names}
    synonyms = _synonyms(thesaurus)
    to_traditional = OpenCC("s2t")
    kinds: dict[str, Callable[[str, random.Random], str] | None] = {
        "01-no-plagiarism": None,
        "02-random": lambda t, r: _random_edits(t, r, r.uniform(0.2, 0.5), synonyms),
        "03-paraphrase": lambda t, r: _paraphrase(t, r, synonyms),
        "04-summary": lambda t, r: _summary(_SENTENCE.findall(t), r),
        "05-traditional": lambda t, r: to_traditional.convert(
            _random_edits(t, r, r.uniform(0.2, 0.3), synonyms)
        ),
    }
    rng = random.Random(seed)
    every: list[str] = []
    number = 0
    for kind, disguise in kinds.items():
        (out / kind).mkdir()
        lines: list[str] = []
        while len(lines) < _PER_KIND:
            source, host = rng.sample(names, 2)
            sizes = (8, 16) if kind == "04-summary" else (3, 7)
            span = _span(texts[source], rng, *sizes)
            if span is None:
                continue
            number += 1
            name = f"suspicious-document{number:05d}.txt"
            text, features = texts[host], []
            if disguise is not None:
                passage = disguise(texts[source][span[0] : span[1]], rng)
                text, offset = _insert(texts[host], passage, rng)
                features.append(_feature(offset, len(passage), source, span))
            (out / "susp" / name).write_text(text, encoding="utf-8", newline="")
            truth = f"{Path(name).stem}-{Path(source).stem}.xml"
            (out / kind / truth).write_text(
                "\n".join([f'<document reference="{name}">', *features, "</document>"]) + "\n",
                encoding="utf-8",
            )
            lines.append(f"{name} {source}")
        (out / kind / "pairs").write_text("\n".join(lines) + "\n", encoding="utf-8")
        every += lines
    (out / "pairs").write_text("\n".join(every) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="zh-reuse-dev (its src/ prose is used)")
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--thesaurus",
        choices=("cilin", "related"),
        default="cilin",
        help="replacement words: Cilin synonyms (what the detector folds) or related words "
        "of the same Cilin fine class (what it does not)",
    )
    arguments = parser.parse_args()
    build(arguments.data, arguments.out, arguments.seed, arguments.thesaurus)
    print("written", arguments.out)


if __name__ == "__main__":
    main()
