"""`manage.py evaluate_pipeline DIR`: PAN-layout pairs through the whole app pipeline.

Each pair is uploaded into a collection of its own (source first), processed by the same
service the Celery task calls (`document_process`, here in-process), and the suspicious
document's stored report is scored against the truth XML at character level. Everything it
created is deleted again at the end (postings included), so it can run on any database.
`--compare-cli` scores `python -m detection pan` on the same pairs, one pair at a time as
here, so the two figures differ only by what the product does around the detector.
"""

from __future__ import annotations

import tempfile
import time
import unicodedata
import uuid
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from detection.pan import run_pan
from documents import selectors, services
from documents.detector_config import detector_config
from documents.models import Document


def _truth(xml_path: Path, name: str = "plagiarism") -> list[tuple[int, int]]:
    root = ET.parse(xml_path).getroot()
    return [
        (int(f.get("this_offset", 0)), int(f.get("this_offset", 0)) + int(f.get("this_length", 0)))
        for f in root.iter("feature")
        if f.get("name") == name
    ]


def _sample(root: Path, limit: int, per_folder: int) -> list[Path]:
    """The truth files: the first `per_folder` of each folder, then the first `limit`."""
    pairs = sorted(root.glob("[0-9][0-9]-*/*.xml"))
    if per_folder:
        taken: dict[str, int] = defaultdict(int)
        kept = []
        for path in pairs:
            if taken[path.parent.name] < per_folder:
                taken[path.parent.name] += 1
                kept.append(path)
        pairs = kept
    return pairs[:limit] if limit else pairs


def _cli_found(root: Path, xml_path: Path) -> list[tuple[int, int]]:
    """What `python -m detection pan` reports for the pair alone."""
    suspicious, source = xml_path.stem.split("-source-")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "pairs").write_text(f"{suspicious}.txt source-{source}.txt\n")
        run_pan(folder / "pairs", root / "src", root / "susp", folder / "out", detector_config())
        return _truth(next((folder / "out").glob("*.xml")), "detected-plagiarism")


def _dropped(char: str) -> bool:
    return char.isspace() or unicodedata.category(char) in ("Cc", "Cf")


def _raw_positions(raw: str, text: str) -> list[int]:
    """For each character of the extracted `text`, its position in the `raw` file, which the
    truth's offsets count: reading a plain-text file folds runs of white space, trims lines
    and drops control characters (a NUL in a web page), so the two differ only by those."""
    positions, i = [], 0
    for char in text:
        while i < len(raw) and raw[i] != char and _dropped(raw[i]):
            i += 1
        positions.append(min(i, len(raw) - 1))
        if i < len(raw) and raw[i] == char:
            i += 1
    return positions


def _measures(totals: dict[str, int]) -> str:
    tp, fp, fn = totals["tp"], totals["fp"], totals["fn"]
    return f"character precision {tp / max(1, tp + fp):.3f}, recall {tp / max(1, tp + fn):.3f}"


def _add(totals: dict[str, int], found: set[int], truth: set[int]) -> None:
    totals["tp"] += len(found & truth)
    totals["fp"] += len(found - truth)
    totals["fn"] += len(truth - found)


def _characters(ranges: list[tuple[int, int]]) -> set[int]:
    return {i for start, end in ranges for i in range(start, end)}


class Command(BaseCommand):
    help = "Score the app pipeline (upload -> process -> stored report) on PAN-layout pairs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="e.g. ../shared/data/zh-reuse-dev")
        parser.add_argument("--limit", type=int, default=0, help="at most this many pairs")
        parser.add_argument(
            "--per-folder", type=int, default=0, help="at most this many pairs of each folder"
        )
        parser.add_argument(
            "--compare-cli",
            action="store_true",
            help="also score `python -m detection pan` on the same pairs",
        )

    def handle(self, *args: object, **options: object) -> None:
        root = Path(options["directory"])  # type: ignore[arg-type]
        pairs = _sample(root, int(options["limit"]), int(options["per_folder"]))  # type: ignore[call-overload]
        if not pairs:
            raise CommandError(f"no NN-name/*.xml truth files under {root}")
        owner = get_user_model().objects.create_user(username=f"evaluate-{uuid.uuid4().hex[:8]}")
        totals: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
        cli: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0})
        started = time.perf_counter()
        try:
            for xml_path in pairs:
                folder = xml_path.parent.name
                truth = _characters(_truth(xml_path))
                found = self._found(root, owner, xml_path)
                for scores in (totals[folder], totals["all"]):
                    _add(scores, found, truth)
                if options["compare_cli"]:
                    found = _characters(_cli_found(root, xml_path))
                    for scores in (cli[folder], cli["all"]):
                        _add(scores, found, truth)
        finally:
            for document in Document.objects.filter(collection__owner=owner):
                services.document_delete(document=document)
            owner.delete()
        elapsed = time.perf_counter() - started
        for folder in sorted(set(totals) - {"all"}):
            line = f"{folder}: pipeline {_measures(totals[folder])}"
            if options["compare_cli"]:
                line += f"; command line {_measures(cli[folder])}"
            self.stdout.write(line)
        self.stdout.write(f"{len(pairs)} pairs in {elapsed:.0f}s: {_measures(totals['all'])}")
        if options["compare_cli"]:
            self.stdout.write(f"command line on the same pairs: {_measures(cli['all'])}")

    def _found(self, root: Path, owner: object, xml_path: Path) -> set[int]:
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
        suspicious_document = Document.objects.get(id=ids[1])
        report = selectors.report_get(document=suspicious_document)
        spans = [(p.start, p.end) for s in report.sources for p in s.passages if p.end > p.start]
        raw = (root / "susp" / f"{suspicious}.txt").read_text(encoding="utf-8-sig")
        if raw == suspicious_document.text:
            return _characters(spans)
        # A passage is one stretch of the raw file too, white space folded away included.
        positions = _raw_positions(raw, suspicious_document.text)
        last = len(positions) - 1
        return _characters(
            [(positions[min(a, last)], positions[min(b - 1, last)] + 1) for a, b in spans]
        )
