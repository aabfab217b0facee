"""Feature extraction speed: the C extension against the numpy path and the tokenizer.

    .venv/bin/python -m benchmarks.features [--docs 300] [--repeat 3]

Tokenizes PAN13 source documents (English) and zh-reuse-dev sources (Chinese) once, then
extracts their features with the C extension and with numpy: "cold" with a vocabulary that has
none of the words yet (every word hashed: the keyed BLAKE2b), "warm" with every word known.
Prints the best of `--repeat` timings in ms per MB of text, and each as a share of the
tokenizer's time in the same run (the machine's speed cancels out of that share).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from benchmarks.corpus import default_data_dir
from detection.config import DEFAULT_CONFIG
from detection.features import FeatureModel, feature_model
from detection.normalize import normalize_with_offsets
from detection.sentences import split_sentences
from detection.vocabulary import NATIVE, _document_features
from detection.words import sentence_words

Tokens = tuple[list[str], list[tuple[int, int]]]


def _texts(data: Path, docs: int) -> list[str]:
    folders = [data / "pan13-train" / "src", data / "zh-reuse-dev" / "src"]
    texts = []
    for folder in folders:
        for path in sorted(folder.glob("*.txt"))[:docs]:
            texts.append(path.read_text(encoding="utf-8"))
    return texts


def _tokens(text: str) -> Tokens:
    config = DEFAULT_CONFIG
    normalized, _ = normalize_with_offsets(text)
    spans = split_sentences(
        normalized, max_chars=config.max_sentence_chars, english=config.english_splitter
    )
    words, bounds, _ = sentence_words(normalized, spans)
    return words, bounds


def _best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def _extract(documents: Sequence[Tokens], model: FeatureModel, native: bool) -> None:
    for words, bounds in documents:
        _document_features(words, bounds, model, native)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=300, help="documents of each corpus")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=default_data_dir())
    args = parser.parse_args(argv)
    texts = _texts(args.data, args.docs)
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    _tokens("预热。 Warm up.")
    tokenize = _best(lambda: [_tokens(t) for t in texts], args.repeat)
    documents = [_tokens(t) for t in texts]
    base = feature_model(DEFAULT_CONFIG)
    fresh = iter(range(10**6))

    def cold(native: bool) -> Callable[[], None]:
        # A new key: a model of its own, whose vocabulary has none of the words yet.
        return lambda: _extract(
            documents, dataclasses.replace(base, key=b"bench%d" % next(fresh)), native
        )

    results = {"texts": len(texts), "megabytes": round(megabytes, 2), "native_built": NATIVE}
    timings = {"tokenize": tokenize}
    paths = [("native", True), ("numpy", False)] if NATIVE else [("numpy", False)]
    for name, native in paths:
        timings[f"{name}_cold"] = _best(cold(native), args.repeat)
        _extract(documents, base, native)  # every word known
        timings[f"{name}_warm"] = _best(partial(_extract, documents, base, native), args.repeat)
    for name, seconds in timings.items():
        results[f"{name}_ms_per_mb"] = round(1000 * seconds / megabytes, 1)
        results[f"{name}_per_tokenize"] = round(seconds / tokenize, 3)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
