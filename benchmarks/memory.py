"""Peak memory of the pipeline on one large text: `python -m benchmarks.memory --mb 20`.

Builds a text of the given size from the shared development data (English PAN sources and
Chinese sources, alternating: `--lang en|zh|mixed`), uploads it to a scratch collection of the
database in DATABASE_URL (deleted afterwards) and runs `document_process` on it in this
process, as a worker child would. A thread samples the resident set size (VmRSS) every 20 ms;
the peak of each pipeline step and of the whole run is printed, in MB.

`--sources N` first processes the first N files the text is built from as documents of the
same collection: the large text then copies them, so its check has candidate sources and runs
the word-level refinement and the disguised-copy stage too (on an otherwise empty database it
has none, and both are skipped).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SOURCES = {
    "en": [SHARED / "pan13-train" / "src"],
    "zh": [SHARED / "zh-reuse-dev" / "src", SHARED / "zh-reprints-dev" / "docs"],
}


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Sampler:
    """The peak RSS of each labelled step, sampled by a thread."""

    def __init__(self) -> None:
        self.step = "start"
        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self._note()

    def _note(self) -> None:
        self.peaks[self.step] = max(self.peaks.get(self.step, 0.0), rss_mb())

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        self._note()

    def wrap(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            before, self.step = self.step, label
            self._note()
            try:
                return function(*args, **kwargs)
            finally:
                self._note()
                self.step = before

        return wrapped


def _texts(lang: str) -> Iterator[str]:
    folders = {"en": SOURCES["en"], "zh": SOURCES["zh"]}
    langs = ["en", "zh"] if lang == "mixed" else [lang]
    files = {
        name: sorted(p for folder in folders[name] if folder.is_dir() for p in folder.glob("*.txt"))
        for name in langs
    }
    if not all(files.values()):
        sys.exit(f"no shared data under {SHARED}")
    while True:
        for group in zip(*(files[name] for name in langs), strict=False):
            for path in group:
                yield path.read_text(encoding="utf-8", errors="replace")


def source_texts(count: int, lang: str) -> list[str]:
    """The first ``count`` distinct files :func:`build_text` starts with."""
    found: list[str] = []
    for text in _texts(lang):
        if len(found) >= count or text in found:
            break
        found.append(text)
    return found


def build_text(megabytes: float, lang: str) -> bytes:
    target = int(megabytes * 1024 * 1024)
    parts: list[bytes] = []
    size = 0
    for text in _texts(lang):
        data = text.encode("utf-8") + b"\n\n"
        parts.append(data)
        size += len(data)
        if size >= target:
            break
    return b"".join(parts)[:target].decode("utf-8", errors="ignore").encode("utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=20.0)
    parser.add_argument("--lang", choices=["en", "zh", "mixed"], default="mixed")
    parser.add_argument(
        "--sources", type=int, default=0, help="source documents the text copies (see above)"
    )
    parser.add_argument(
        "--no-mallopt", action="store_true", help="leave glibc's mmap threshold dynamic"
    )
    options = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from detection.detector import warm_up
    from documents import services
    from documents.detector_config import detector_config
    from documents.models import Collection, Document
    from documents.services import pipeline

    if not options.no_mallopt:
        from core import memory

        memory.large_blocks_mapped()  # as a worker child does (config.celery)
    warm_up(detector_config())
    data = build_text(options.mb, options.lang)
    settings.MAX_UPLOAD_BYTES = max(settings.MAX_UPLOAD_BYTES, len(data))
    user, _ = get_user_model().objects.get_or_create(username="memory-benchmark")
    collection = services.collection_create(owner=user, name="memory benchmark (scratch)")
    try:
        for number, text in enumerate(source_texts(options.sources, options.lang)):
            source = services.document_upload(
                collection=collection,
                filename=f"source-{number}.txt",
                data=text.encode("utf-8"),
                enqueue=False,
            )
            services.document_process(document_id=source.id)
        document = services.document_upload(
            collection=collection, filename="large.txt", data=data, enqueue=False
        )
        del data
        baseline = rss_mb()
        with Sampler() as sampler:
            for name in ("_page_read", "analyze", "_index_replace", "_detect", "matches_replace"):
                setattr(pipeline, name, sampler.wrap(name, getattr(pipeline, name)))
            started = time.monotonic()
            sampler.step = "other"
            services.document_process(document_id=document.id)
            took = time.monotonic() - started
        row = Document.objects.get(id=document.id)
        print(
            f"text: {options.mb:g} MB {options.lang}, {len(row.text):,} characters, "
            f"{options.sources} sources, {row.matches.count():,} matches, "
            f"{len(row.sentence_starts):,} sentences; status {row.status} {row.error[:200]}"
        )
        print(f"baseline RSS before processing: {baseline:,.0f} MB; took {took:,.0f} s")
        for step, peak in sampler.peaks.items():
            print(f"  peak RSS in {step:<16} {peak:>8,.0f} MB")
        print(f"peak RSS of the run: {max(sampler.peaks.values()):,.0f} MB")
    finally:
        Collection.objects.filter(id=collection.id).update(deleting=True)
        services.collection_purge(collection_id=collection.id)


if __name__ == "__main__":
    main()
