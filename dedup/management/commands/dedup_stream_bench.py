"""`manage.py dedup_stream_bench --members N`: how long streaming one document into a large run
takes (docs/dedup.md, "Measured").

A measurement, not a test. It builds a collection of N processed documents from real text (each
4-10 paragraphs of zh-reprints-dev pages, drawn with a fixed seed: many documents share
paragraphs, as reprints do), runs the method over it, then streams `--new` more documents into
the run one at a time as the pipeline does (`dedup_document_assign`) and prints one JSON
object: the run's seconds, the first assignment (the process reads the run) and the others'
p50 / p95 (nearest rank) / max in ms. The documents are stored as processed text only
(streaming reads nothing else; they are not in the copy-detection index). Everything it
created is deleted at the end.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
import uuid
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from dedup import services
from dedup.models import DedupRun
from documents import services as document_services
from documents.models import Collection, Document

SEED = 5


class Command(BaseCommand):
    help = "Time streaming assignment of new documents into a run of --members documents."

    def add_arguments(self, parser: CommandParser) -> None:
        default = Path(__file__).resolve().parents[3].parent / "shared/data/zh-reprints-dev/docs"
        parser.add_argument("--members", type=int, default=20_000)
        parser.add_argument("--new", type=int, default=30, help="documents streamed in")
        parser.add_argument("--method", default=services.DEFAULT_METHOD)
        parser.add_argument("--pages", type=Path, default=default, help="a folder of .txt pages")

    def handle(self, *args: object, **options: object) -> None:
        members, new = int(options["members"]), int(options["new"])  # type: ignore[call-overload]
        if members < 1 or new < 2:
            raise CommandError("--members must be at least 1 and --new at least 2")
        method = services.method_check(str(options["method"]))
        paragraphs = _paragraphs(Path(options["pages"]))  # type: ignore[arg-type]
        rng = random.Random(SEED)
        owner = get_user_model().objects.create_user(username=f"stream-{uuid.uuid4().hex[:8]}")
        try:
            collection = document_services.collection_create(owner=owner, name="stream bench")
            _documents(collection, "m", members, paragraphs, rng)
            started = time.perf_counter()
            # The row alone, not `dedup_run_start`: that also queues the run for a worker,
            # which would run it a second time next to this process.
            run = DedupRun.objects.create(collection=collection, method=method)
            services.dedup_run_execute(run_id=run.id)
            ran = time.perf_counter() - started
            run.refresh_from_db()
            if run.status != DedupRun.Status.DONE:
                raise CommandError(f"the run failed: {run.error}")
            times = []
            for document in _documents(collection, "n", new, paragraphs, rng):
                started = time.perf_counter()
                services.dedup_document_assign(document=document)
                times.append((time.perf_counter() - started) * 1000)
        finally:  # no files, no postings: the rows go in one cascade
            Collection.objects.filter(owner=owner).delete()
            owner.delete()
        rest = sorted(times[1:])
        self.stdout.write(
            json.dumps(
                {
                    "method": method,
                    "members": members,
                    "run_seconds": round(ran, 2),
                    "first_assignment_ms": round(times[0], 1),
                    "assignment_ms": {
                        "p50": round(statistics.median(rest), 1),
                        "p95": round(rest[math.ceil(0.95 * len(rest)) - 1], 1),  # nearest rank
                        "max": round(rest[-1], 1),
                        "n": len(rest),
                    },
                },
                indent=1,
            )
        )


def _paragraphs(folder: Path) -> list[str]:
    if not folder.is_dir():
        raise CommandError(f"no folder of pages at {folder} (--pages)")
    found = [
        line
        for page in sorted(folder.glob("*.txt"))
        for line in page.read_text(encoding="utf-8").splitlines()
        if len(line) > 40
    ]
    if len(found) < 10:
        raise CommandError(f"too few paragraphs in {folder}")
    return found


def _documents(
    collection: Collection, prefix: str, count: int, paragraphs: list[str], rng: random.Random
) -> list[Document]:
    rows = []
    for i in range(count):
        text = "\n".join(rng.sample(paragraphs, rng.randint(4, 10)))
        rows.append(
            Document(
                collection=collection,
                filename=f"{prefix}{i}.txt",
                text=text,
                status=Document.Status.DONE,
                size=len(text.encode()),
                checksum=f"{prefix}{i}",
            )
        )
    return Document.objects.bulk_create(rows, batch_size=2_000)
