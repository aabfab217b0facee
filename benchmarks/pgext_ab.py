"""The copydetect PostgreSQL extension's effect on the full check, with and without it in turn.

    DJANGO_SETTINGS_MODULE=config.settings.dev .venv/bin/python -m benchmarks.pgext_ab \\
        --docs 20000 --alternations 4

Builds one archive as `manage.py bench` does (a separate database, DROPPED and recreated),
then times the worst-case queries' lookup and full check (`detection.detect`) with the
postings aggregated by `array_agg` and by the extension's `posting_pack`, alternating
`--alternations` times on the same archive in the same process. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.dev")
django.setup()

from django.db import connections  # noqa: E402

from benchmarks import corpus, database, latency  # noqa: E402
from benchmarks.run import BenchOptions, _bases, _queries  # noqa: E402
from documents.index import extension  # noqa: E402


def _summary(measured: latency.Latency) -> dict[str, float]:
    return {
        f"{kind}_{name}_ms": round(latency.percentile(values, q), 2)
        for kind, values in (("lookup", measured.lookup_ms), ("check", measured.check_ms))
        for name, q in (("p50", 0.5), ("p95", 0.95))
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--base-docs", type=int, default=1_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--alternations", type=int, default=4)
    parser.add_argument("--database", default="copydetect_pgext_bench")
    parser.add_argument("--data-dir", type=Path, default=corpus.default_data_dir())
    args = parser.parse_args(argv)
    say = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    options = BenchOptions(
        sizes=(args.docs,), ingest_docs=0, queries=args.queries, processes=os.cpu_count() or 1,
        batch=2_000, ingest_batch=100, peer_docs=0, data_dir=args.data_dir,
        database=args.database, base_docs=args.base_docs,
    )  # fmt: skip
    recombiner, _ = _bases(options, say)
    alias = database.bench_database_open(args.database)
    collection_id = database.bench_collection(alias)
    queries = _queries(recombiner, args.queries)  # worst case: QUERY_CHARS copied throughout
    clock = latency.LoadClock()
    index = latency.timed_index(alias, queries[0].model_version, clock)
    say(f"loading {args.docs} documents")
    latency.archive_grow(
        recombiner, index, clock, collection_id=collection_id, ids=range(args.docs),
        batch=options.batch, store_text=False,
    )  # fmt: skip
    index.vacuum()
    index.record_heavy_features([corpus.document_id(i) for i in range(args.docs)])
    index.vacuum(postings=False)
    database.settle(alias)
    database.checkpoint(alias)
    connection = connections[alias]
    connection.ensure_connection()
    if not extension.packing(connection.connection):
        sys.exit("the bench database has no copydetect extension: nothing to compare")
    runs = []
    for turn in range(args.alternations):
        for packed in (False, True) if turn % 2 == 0 else (True, False):
            extension._PACKING[connection.connection] = packed  # this connection's choice
            say(f"turn {turn}: {'posting_pack' if packed else 'array_agg'}")
            measured = latency.check_latency(index, queries)
            runs.append({"turn": turn, "posting_pack": packed, **_summary(measured)})
    postings = database.scalar(alias, "SELECT count(*) FROM documents_posting")
    database.bench_database_drop(args.database)
    print(json.dumps({"documents": args.docs, "postings": postings, "runs": runs}, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
