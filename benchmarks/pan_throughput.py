"""Throughput of ``python -m detection pan`` on PAN-layout corpora (documents/s, MB/s).

A measurement, not a test: run it by hand on an idle machine, e.g.

    .venv/bin/python -m benchmarks.pan_throughput /work/shared/data/pan13-verbatim-dev \
        /work/shared/data/zh-reuse-dev --segmenters

For each corpus it times the whole PAN run (analysing every source and suspicious document,
indexing, detection, word-level refinement, writing XML) and analyze() alone; ``--segmenters``
also times jieba against rjieba (the same dictionary) on the corpus' Han text.

``--digest`` prints instead a digest of what analyze() returns for every document (language,
sentence spans, features): a speed-up must leave it unchanged (docs/benchmarks.md,
"Where analysis time goes").
"""

from __future__ import annotations

import argparse
import hashlib
import re
import tempfile
import time
from pathlib import Path

from detection import DEFAULT_CONFIG, analyze
from detection.pan import read_text, run_pan
from detection.words import token_spans

_HAN_RUN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]+")


def _texts(corpus: Path) -> list[str]:
    return [read_text(p) for folder in ("src", "susp") for p in sorted((corpus / folder).iterdir())]


def pan_throughput(corpus: Path) -> str:
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        run = run_pan(corpus / "pairs", corpus / "src", corpus / "susp", Path(out), DEFAULT_CONFIG)
        elapsed = time.perf_counter() - started
    return (
        f"{corpus.name}: pan  {run.pairs} pairs, {run.documents} documents, "
        f"{run.bytes / 1e6:.2f} MB in {elapsed:.2f} s = {run.documents / elapsed:.1f} documents/s, "
        f"{run.bytes / 1e6 / elapsed:.3f} MB/s"
    )


def _best_of(runs: int, function, texts: list[str]) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        for text in texts:
            function(text)
        best = min(best, time.perf_counter() - started)
    return best


def analyze_throughput(corpus: Path) -> str:
    """analyze() alone, and its speed relative to the tokenizer alone on the same texts."""
    texts = _texts(corpus)
    size = sum(len(t.encode("utf-8")) for t in texts)
    analyze(texts[0])  # load dictionaries outside the timing
    elapsed = _best_of(2, analyze, texts)
    tokenizer = _best_of(2, token_spans, texts)
    return (
        f"{corpus.name}: analyze() {len(texts) / elapsed:.1f} documents/s, "
        f"{size / 1e6 / elapsed:.3f} MB/s; tokenizer alone {size / 1e6 / tokenizer:.3f} MB/s "
        f"(analyze/tokenizer throughput {tokenizer / elapsed:.2f})"
    )


def analysis_digest(corpus: Path) -> str:
    """SHA-256 (first 16 hex digits) of analyze() on every document of ``corpus``."""
    digest = hashlib.sha256()
    for folder in ("src", "susp"):
        for path in sorted((corpus / folder).iterdir()):
            analysis = analyze(read_text(path))
            digest.update(f"{path.name}\n{analysis.language}\n".encode())
            for s in analysis.sentences:
                digest.update(repr((s.index, s.start, s.end, s.features)).encode())
    model = analyze("").model_version
    return f"{corpus.name}: analysis digest {digest.hexdigest()[:16]} ({model})"


def segmenter_throughput(corpus: Path) -> str:
    import jieba
    import rjieba

    runs = [run for text in _texts(corpus) for run in _HAN_RUN.findall(text)]
    if not runs:
        return f"{corpus.name}: no Han text"
    jieba.initialize()
    rjieba.cut(runs[0])
    size = sum(len(r.encode("utf-8")) for r in runs)
    timings = {}
    for name, cut in (("jieba", lambda s: list(jieba.cut(s))), ("rjieba", rjieba.cut)):
        started = time.perf_counter()
        for run in runs:
            cut(run)
        timings[name] = time.perf_counter() - started
    same = all(list(jieba.cut(r)) == rjieba.cut(r) for r in runs)
    return (
        f"{corpus.name}: jieba {size / 1e6 / timings['jieba']:.2f} MB/s, "
        f"rjieba {size / 1e6 / timings['rjieba']:.2f} MB/s "
        f"({timings['jieba'] / timings['rjieba']:.1f}x), identical output: {same}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--segmenters", action="store_true", help="also time jieba vs rjieba")
    parser.add_argument(
        "--digest", action="store_true", help="only print a digest of analyze()'s output"
    )
    arguments = parser.parse_args()
    for corpus in arguments.corpora:
        if arguments.digest:
            print(analysis_digest(corpus), flush=True)
            continue
        print(pan_throughput(corpus), flush=True)
        print(analyze_throughput(corpus), flush=True)
        if arguments.segmenters:
            print(segmenter_throughput(corpus), flush=True)


if __name__ == "__main__":
    main()
