"""`manage.py evaluate_pipeline DIR`: PAN-layout pairs through the whole app pipeline.

Each pair is uploaded into a collection of its own (source first), processed by the same
service the Celery task calls (`document_process`, here in-process), and the suspicious
document's stored report is scored against the truth XML at character level. Everything it
created is deleted again at the end (postings included), so it can run on any database.
"""

from __future__ import annotations

import time
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents import selectors, services
from documents.models import Document


def _truth(xml_path: Path) -> list[tuple[int, int]]:
    root = ET.parse(xml_path).getroot()
    return [
        (int(f.get("this_offset", 0)), int(f.get("this_offset", 0)) + int(f.get("this_length", 0)))
        for f in root.iter("feature")
        if f.get("name") == "plagiarism"
    ]


def _characters(ranges: list[tuple[int, int]]) -> set[int]:
    return {i for start, end in ranges for i in range(start, end)}


class Command(BaseCommand):
    help = "Score the app pipeline (upload -> process -> stored report) on PAN-layout pairs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="e.g. ../shared/data/zh-reuse-dev")
        parser.add_argument("--limit", type=int, default=0, help="at most this many pairs")

    def handle(self, *args: object, **options: object) -> None:
        root = Path(options["directory"])  # type: ignore[arg-type]
        pairs = sorted(root.glob("[0-9][0-9]-*/*.xml"))
        if options["limit"]:
            pairs = pairs[: int(options["limit"])]  # type: ignore[call-overload]
        if not pairs:
            raise CommandError(f"no NN-name/*.xml truth files under {root}")
        owner = get_user_model().objects.create_user(username=f"evaluate-{uuid.uuid4().hex[:8]}")
        totals = {"tp": 0, "fp": 0, "fn": 0}
        started = time.perf_counter()
        try:
            for xml_path in pairs:
                self._score(root, owner, xml_path, totals)
        finally:
            for document in Document.objects.filter(collection__owner=owner):
                services.document_delete(document=document)
            owner.delete()
        elapsed = time.perf_counter() - started
        tp, fp, fn = totals["tp"], totals["fp"], totals["fn"]
        self.stdout.write(
            f"{len(pairs)} pairs in {elapsed:.0f}s: character precision "
            f"{tp / max(1, tp + fp):.3f}, recall {tp / max(1, tp + fn):.3f}"
        )

    def _score(self, root: Path, owner: object, xml_path: Path, totals: dict[str, int]) -> None:
        suspicious, source = xml_path.stem.split("-source-")
        collection = services.collection_create(owner=owner, name=xml_path.stem)  # type: ignore[arg-type]
        ids = []
        for folder, name in (("src", f"source-{source}.txt"), ("susp", f"{suspicious}.txt")):
            data = (root / folder / name).read_bytes()
            document = services.document_upload(
                collection=collection, filename=name, data=data, enqueue=False
            )
            ids.append(document.id)
        for document_id in ids:
            services.document_process(document_id=document_id)
        report = selectors.report_get(document=Document.objects.get(id=ids[1]))
        found = _characters([(p.start, p.end) for s in report.sources for p in s.passages])
        truth = _characters(_truth(xml_path))
        totals["tp"] += len(found & truth)
        totals["fp"] += len(found - truth)
        totals["fn"] += len(truth - found)
