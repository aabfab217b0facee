"""Build an English document-level near-duplicate set in the zh-reprints-dev layout.

    python scripts/make_en_reprints.py OUT_DIR [--src DIR] [--stories 150] [--seed 13]

Stories are PAN13 source documents (``/work/shared/data/pan13-verbatim-dev/src``), re-flowed
into paragraphs (one per line).  Each story is published on one fictitious site and reprinted
1–3 times on others; every page carries its site's template (name, navigation, byline with date
and editor, share/print links, copyright, a "Related:" headline).  A reprint is one of:

- ``verbatim``  the same article (label ``duplicate``);
- ``noisy``     character and word noise: typographic quotes, a few dropped articles, a few
                near-synonym swaps, a few typos, hard line breaks (``duplicate``);
- ``partial``   the first 35–70 % of the paragraphs (``containment``);
- ``appended``  the article followed by an unrelated one not used as a story (``containment``).

Between two pages of a story the label is ``duplicate`` when both carry the whole article
(original, verbatim or noisy) and ``containment`` otherwise.  ``different`` pairs are twice as
many as the same-story pairs; half of them are different stories on the same site, which share
the template and nothing else.  Output: ``docs/docNNNNN.txt``, ``pairs.tsv``, ``clusters.tsv``.
Deterministic for a given seed and source folder; generated at run time, never committed.
"""

from __future__ import annotations

import argparse
import random
import re
from dataclasses import dataclass
from pathlib import Path

DEFAULT_SRC = Path("/work/shared/data/pan13-verbatim-dev/src")
SITES = [
    ("The Daily Ledger", "Home | World | Business | Science | Opinion"),
    ("Metro Wire", "News / Local / Tech / Health / Sports"),
    ("Northern Courier", "Front Page > Latest > Features"),
    ("Science Digest Online", "Home - Research - Medicine - Environment"),
    ("The Evening Post", "Top Stories | Politics | Economy | Culture"),
    ("Global Report", "Home » News » Analysis"),
    ("Valley Tribune", "Local | Region | Nation | World | Weather"),
    ("Harbor Times", "Start | Stories | Columns | Archive"),
    ("Plainview Herald", "Headlines / Science / Society / Letters"),
    ("Capital Observer", "News | Policy | Markets | Ideas"),
]
EDITORS = ["J. Smith", "A. Lee", "M. Garcia", "staff", "K. Brown", "wire desk"]
RELATED = [
    "City council approves new budget",
    "Researchers report progress on vaccine",
    "Local team wins championship",
    "Storm expected this weekend",
    "New museum opens downtown",
]
SYNONYMS = {
    "big": "large",
    "large": "big",
    "show": "demonstrate",
    "shows": "demonstrates",
    "use": "employ",
    "used": "employed",
    "important": "significant",
    "significant": "important",
    "increase": "rise",
    "however": "yet",
    "study": "research",
    "result": "outcome",
    "results": "outcomes",
    "found": "discovered",
    "help": "assist",
    "about": "around",
}
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


@dataclass(frozen=True)
class Page:
    story: int
    site: int
    kind: str  # original | verbatim | noisy | partial | appended
    paragraphs: tuple[str, ...]


def paragraphs_of(text: str, rng: random.Random) -> list[str]:
    """Re-flow hard-wrapped text into paragraphs of 3–5 sentences."""
    sentences = [s.strip() for s in SENTENCE_END.split(" ".join(text.split())) if s.strip()]
    result, at = [], 0
    while at < len(sentences):
        size = rng.randint(3, 5)
        result.append(" ".join(sentences[at : at + size]))
        at += size
    return result


def noisy(paragraphs: tuple[str, ...], rng: random.Random) -> tuple[str, ...]:
    """Light reprint noise: quotes, dropped articles, synonyms, typos, hard line breaks."""
    out = []
    for para in paragraphs:
        words = para.replace('"', "\u201c").replace("'", "\u2019").split(" ")
        for i, word in enumerate(words):
            roll = rng.random()
            if word.lower() in ("the", "a") and roll < 0.15:
                words[i] = ""
            elif word.lower() in SYNONYMS and roll < 0.5:
                words[i] = SYNONYMS[word.lower()]
            elif len(word) > 5 and roll < 0.01:
                j = rng.randrange(len(word) - 1)
                words[i] = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
        text = " ".join(w for w in words if w)
        if len(text) > 200 and rng.random() < 0.3:
            cut = text.rfind(" ", 0, len(text) // 2)
            text = text[:cut] + "\n" + text[cut + 1 :]
        out.append(text)
    return tuple(out)


def render(page: Page, rng: random.Random) -> str:
    name, nav = SITES[page.site]
    day = rng.randint(1, 28)
    header = [name, nav, f"Posted 2013-03-{day:02d} by {rng.choice(EDITORS)} | Source: wire"]
    footer = [
        "Share this: Facebook Twitter Email",
        "Print | Close | Report an error",
        f"Copyright \u00a9 {name}. All rights reserved.",
        f"Related: {rng.choice(RELATED)}",
    ]
    return "\n".join(header + list(page.paragraphs) + footer) + "\n"


def reprint(original: Page, site: int, pool: list[list[str]], rng: random.Random) -> Page:
    kind = rng.choice(["verbatim", "noisy", "noisy", "partial", "appended"])
    paras = original.paragraphs
    if kind == "noisy":
        paras = noisy(paras, rng)
    elif kind == "partial":
        keep = max(1, round(len(paras) * rng.uniform(0.35, 0.7)))
        paras = paras[:keep]
    elif kind == "appended":
        paras = paras + tuple(pool.pop())
    return Page(original.story, site, kind, paras)


def label(a: Page, b: Page) -> str:
    if a.story != b.story:
        return "different"
    whole = {"original", "verbatim", "noisy"}
    return "duplicate" if a.kind in whole and b.kind in whole else "containment"


def build_pages(texts: list[str], stories: int, rng: random.Random) -> list[Page]:
    parsed = [paragraphs_of(t, rng) for t in texts]
    usable = [p for p in parsed if len(p) >= 3]
    rng.shuffle(usable)
    chosen, pool = usable[:stories], usable[stories:]
    pages = []
    for story, paras in enumerate(chosen):
        site = rng.randrange(len(SITES))
        original = Page(story, site, "original", tuple(paras))
        pages.append(original)
        others = [s for s in range(len(SITES)) if s != site]
        for other in rng.sample(others, rng.randint(1, 3)):
            pages.append(reprint(original, other, pool, rng))
    return pages


def negative_pairs(pages: list[Page], count: int, rng: random.Random) -> set[tuple[int, int]]:
    """Half different stories on the same site, half random different stories."""
    by_site: dict[int, list[int]] = {}
    for i, page in enumerate(pages):
        by_site.setdefault(page.site, []).append(i)
    found: set[tuple[int, int]] = set()
    attempts = 0
    while len(found) < count and attempts < 100 * count:
        attempts += 1
        if len(found) < count // 2:
            site = rng.randrange(len(SITES))
            if len(by_site.get(site, [])) < 2:
                continue
            a, b = rng.sample(by_site[site], 2)
        else:
            a, b = rng.sample(range(len(pages)), 2)
        if pages[a].story != pages[b].story:
            found.add((min(a, b), max(a, b)))
    return found


def write(out: Path, pages: list[Page], rng: random.Random) -> None:
    docs = out / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    names = [f"doc{i + 1:05d}.txt" for i in range(len(pages))]
    for name, page in zip(names, pages, strict=True):
        (docs / name).write_text(render(page, rng), encoding="utf-8")
    positive = [
        (i, j)
        for i in range(len(pages))
        for j in range(i + 1, len(pages))
        if pages[i].story == pages[j].story
    ]
    pairs = sorted(set(positive) | negative_pairs(pages, 2 * len(positive), rng))
    with (out / "pairs.tsv").open("w", encoding="utf-8") as handle:
        handle.write("doc_a\tdoc_b\tlabel\n")
        for i, j in pairs:
            handle.write(f"{names[i]}\t{names[j]}\t{label(pages[i], pages[j])}\n")
    with (out / "clusters.tsv").open("w", encoding="utf-8") as handle:
        handle.write("doc\tcluster\n")
        for name, page in zip(names, pages, strict=True):
            handle.write(f"{name}\t{page.story}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--src", type=Path, default=DEFAULT_SRC)
    parser.add_argument("--stories", type=int, default=150)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    files = sorted(args.src.glob("*.txt"))
    if not files:
        parser.error(f"no *.txt in {args.src}")
    texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    pages = build_pages(texts, args.stories, rng)
    write(args.out_dir, pages, rng)
    print(f"{len(pages)} documents of {args.stories} stories in {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
