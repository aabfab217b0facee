"""`python manage.py bench --docs N`: the archive-at-scale benchmark (docs/benchmarks.md).

Builds an archive of real (and recombined real) prose in a SEPARATE database on the same
server (default `copydetect_bench`, dropped and recreated each run; the dev data is untouched)
and prints ONE JSON object.  Progress goes to stderr.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchmarks.corpus import default_data_dir
from benchmarks.run import BenchOptions, bench_run


def _sizes(value: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in value.split(",") if part.strip())
    except ValueError as error:
        raise CommandError(
            f"--sizes takes comma-separated document counts, got {value!r}"
        ) from error
    if not sizes or min(sizes) < 1:
        raise CommandError("--sizes needs positive document counts")
    return sizes


class Command(BaseCommand):
    help = "Benchmark the PostgreSQL posting index (ingest, COPY, latency curve, MinHash peer)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--docs", type=int, default=20_000, help="largest archive size")
        parser.add_argument(
            "--sizes", type=str, default="",
            help="comma-separated archive sizes to measure at (default: docs/4, docs/2, docs)",
        )  # fmt: skip
        parser.add_argument(
            "--ingest-docs",
            type=int,
            default=1_500,
            help="real documents ingested end to end (honest throughput)",
        )
        parser.add_argument(
            "--queries", type=int, default=100,
            help="query documents of each kind per size (p95: the 95th of 100)",
        )  # fmt: skip
        parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
        parser.add_argument(
            "--ingest-processes", type=int, default=max(1, (os.cpu_count() or 1) - 1),
            help="worker processes of the headline ingest (default: one core left for "
            "PostgreSQL); --processes workers are measured too",
        )  # fmt: skip
        parser.add_argument("--batch", type=int, default=2_000, help="documents per COPY batch")
        parser.add_argument("--ingest-batch", type=int, default=100)
        parser.add_argument(
            "--peer-docs",
            type=int,
            default=0,
            help="documents indexed by the MinHash peer (default: smallest size)",
        )
        parser.add_argument("--data-dir", type=Path, default=default_data_dir())
        parser.add_argument(
            "--base-docs",
            type=int,
            default=0,
            help="use an even sample of this many real documents (0: all)",
        )
        parser.add_argument(
            "--database",
            default="copydetect_archive_bench",
            help="benchmark database (DROPPED and recreated)",
        )
        parser.add_argument("--json-out", type=Path, default=None, help="also write the JSON here")
        parser.add_argument(
            "--batch-pairs",
            type=int,
            default=200,
            help="documents of the all-pairs batch measurement",
        )
        parser.add_argument(
            "--duplicate-rounds", action="store_true",
            help="do not re-key recombined rounds: every real sentence recurs in the archive",
        )  # fmt: skip
        parser.add_argument("--no-explain", action="store_true")

    def handle(self, *args: object, **options: object) -> None:
        docs = int(options["docs"])  # type: ignore[call-overload]
        sizes = _sizes(str(options["sizes"])) if options["sizes"] else None
        sizes = sizes or tuple(sorted({max(1, docs // 4), max(1, docs // 2), docs}))
        bench = BenchOptions(
            sizes=tuple(sorted(sizes)),
            ingest_docs=int(options["ingest_docs"]),  # type: ignore[call-overload]
            queries=max(1, int(options["queries"])),  # type: ignore[call-overload]
            processes=max(1, int(options["processes"])),  # type: ignore[call-overload]
            batch=int(options["batch"]),  # type: ignore[call-overload]
            ingest_batch=int(options["ingest_batch"]),  # type: ignore[call-overload]
            ingest_processes=max(1, int(options["ingest_processes"])),  # type: ignore[call-overload]
            peer_docs=int(options["peer_docs"]) or min(sizes),  # type: ignore[call-overload]
            data_dir=Path(options["data_dir"]),  # type: ignore[arg-type]
            database=str(options["database"]),
            base_docs=int(options["base_docs"]),  # type: ignore[call-overload]
            explain=not options["no_explain"],
            distinct_rounds=not options["duplicate_rounds"],
            batch_pairs=max(2, min(int(options["batch_pairs"]), min(sizes))),  # type: ignore[call-overload]
        )
        report = bench_run(bench, log=lambda message: print(message, file=sys.stderr, flush=True))
        text = json.dumps(report, indent=2)
        if options["json_out"]:
            Path(options["json_out"]).write_text(text + "\n")  # type: ignore[arg-type]
        self.stdout.write(text)
