"""`manage.py dedup_evaluate DIR`: a zh-reprints-dev-layout set through the dedup services.

Every page is uploaded and processed by the documents pipeline (in-process), then deduplicated
by `dedup_run_execute`; the stored clusters are scored against `clusters.tsv` with the adjusted
Rand index.  With `--stream-from F`, only the first F of the pages (in file order) are in the
run and the rest are processed afterwards and placed one by one by `dedup_document_assign`, as
the pipeline does for new uploads.  Everything it created is deleted at the end.
"""

from __future__ import annotations

import csv
import time
import uuid
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from dedup import services
from dedup.models import ClusterMember, DedupRun
from detection.neardup.metrics import adjusted_rand_index
from documents import services as document_services
from documents.models import Collection, Document


class Command(BaseCommand):
    help = "Score the dedup app (run + streaming) on a zh-reprints-dev-layout directory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="e.g. ../shared/data/zh-reprints-dev")
        parser.add_argument("--method", default=services.DEFAULT_METHOD)
        parser.add_argument("--stream-from", type=float, default=1.0, help="share in the run")

    def handle(self, *args: object, **options: object) -> None:
        root = Path(options["directory"])  # type: ignore[arg-type]
        truth = _clusters(root / "clusters.tsv")
        names = sorted(truth)
        cut = round(len(names) * float(options["stream_from"]))  # type: ignore[arg-type]
        method = services.method_check(str(options["method"]))
        owner = get_user_model().objects.create_user(username=f"dedup-{uuid.uuid4().hex[:8]}")
        try:
            collection = document_services.collection_create(owner=owner, name=root.name)
            started = time.perf_counter()
            ids = _add(collection, root / "docs", names[:cut])
            processed = time.perf_counter()
            run = services.dedup_run_start(collection=collection, method=method)
            services.dedup_run_execute(run_id=run.id)
            ran = time.perf_counter()
            late = _add(collection, root / "docs", names[cut:])
            streamed_started = time.perf_counter()
            for document in Document.objects.filter(id__in=late.values()):
                services.dedup_document_assign(document=document)
            streamed = time.perf_counter()
            self._report(run.id, {**ids, **late}, truth, processed - started, ran - processed)
            if late:
                per_doc = (streamed - streamed_started) / len(late)
                self.stdout.write(f"{len(late)} pages streamed in, {per_doc:.3f}s per page")
        finally:
            for document in Document.objects.filter(collection__owner=owner):
                document_services.document_delete(document=document)
            owner.delete()

    def _report(
        self, run_id: int, ids: dict[str, int], truth: dict[str, int], process: float, run: float
    ) -> None:
        run_row = DedupRun.objects.get(id=run_id)
        if run_row.status != DedupRun.Status.DONE:
            raise CommandError(f"the run ended {run_row.status}: {run_row.error}")
        clusters = dict(ClusterMember.objects.filter(run=run_id).values_list("document", "cluster"))
        predicted = {name: clusters[i] for name, i in ids.items() if i in clusters}
        self.stdout.write(
            f"{run_row.method}: {len(ids)} pages; pipeline {process:.0f}s, run {run:.1f}s; "
            f"ARI {adjusted_rand_index(truth, predicted):.3f} "
            f"({len(set(predicted.values()))} clusters, {len(set(truth.values()))} stories)"
        )


def _clusters(path: Path) -> dict[str, int]:
    if not path.is_file():
        raise CommandError(f"{path} not found (doc<TAB>cluster per line)")
    with open(path, encoding="utf-8", newline="") as handle:
        return {row["doc"]: int(row["cluster"]) for row in csv.DictReader(handle, delimiter="\t")}


def _add(collection: Collection, folder: Path, names: list[str]) -> dict[str, int]:
    """Upload and process pages in-process; {filename: document id}."""
    ids = {}
    for name in names:
        document = document_services.document_upload(
            collection=collection, filename=name, data=(folder / name).read_bytes(), enqueue=False
        )
        document_services.document_process(document_id=document.id)
        ids[name] = document.id
    return ids
