"""Analysis and ingestion in worker processes (both cores), with per-process figures.

Workers are forked after the parent closed its database connections, so each opens its own.
`ingest_worker` measures, on the SAME texts in the same process: the tokenizer alone
(`detection.words.token_spans`, the tokenizer `analyze()` runs) and the end-to-end ingest
(`analyze` + Document rows + `PostgresSentenceIndex.add_many`: COPY of the postings; no document
frequencies at ingest since migration 0019), committed per batch as the app would. The worker
is set up as a Celery worker process is (`detection.detector.warm_up`, then `gc.freeze`).

Two ways to ingest, both reported: SEQUENTIAL (analyse a batch, write it, analyse the next) and
OVERLAPPED (a writer thread of the same process, with its own connection, writes batch k while
the main thread analyses batch k+1; up to IN_FLIGHT batches in flight, so that one slow commit
does not stall the analysis at once). psycopg releases the GIL while it
waits for the server, so the server's work on batch k overlaps the analysis of batch k+1.
Either way the process's figure is its bytes / the wall time of its ingest pass.
"""

from __future__ import annotations

import gc
import multiprocessing
import resource
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from functools import partial

from django.db import connections, transaction

from benchmarks.corpus import Recombiner, document_id
from benchmarks.database import documents_load
from detection import DocumentAnalysis, analyze
from detection.detector import warm_up
from detection.words import token_spans
from documents.detector_config import detector_config
from documents.index.store import PostgresSentenceIndex

# Set by the parent before forking; the children inherit it (fork start method).
_RECOMBINER: Recombiner | None = None
# Batches analysed and handed to the writer but not yet committed, at most (overlapped).
IN_FLIGHT = 2


@dataclass(frozen=True)
class WorkerFigures:
    """What one worker process measured on its share of the documents."""

    documents: int
    megabytes: float  # UTF-8 size of the texts, MB = 10^6 bytes
    postings: int
    tokenize_seconds: float
    analyze_seconds: float
    database_seconds: float  # overlapped: the writer thread's busy time (not on top of analyze)
    writer_cpu_seconds: float  # CPU time of this process spent writing (holding the GIL, mostly)
    ingest_seconds: float  # wall time of the ingest pass: what the per-process figure uses
    max_rss_mb: float


def analyze_texts(texts: Sequence[str], processes: int) -> list[DocumentAnalysis]:
    """`analyze` over a pool of `processes` forked workers (order kept)."""
    connections.close_all()
    context = multiprocessing.get_context("fork")
    with context.Pool(processes) as pool:
        return pool.map(partial(analyze, config=detector_config()), texts, chunksize=16)


def ingest_parallel(
    recombiner: Recombiner,
    *,
    alias: str,
    collection_id: int,
    ids: Sequence[int],
    processes: int,
    batch: int,
    overlap: bool,
) -> list[WorkerFigures]:
    """Ingest variants `ids` in `processes` workers (interleaved shares); figures per worker."""
    global _RECOMBINER
    _RECOMBINER = recombiner
    connections.close_all()
    shares = [
        (list(ids[rank::processes]), alias, collection_id, batch, overlap)
        for rank in range(processes)
    ]
    context = multiprocessing.get_context("fork")
    with context.Pool(processes) as pool:
        return pool.starmap(ingest_worker, shares)


def ingest_worker(
    ids: list[int], alias: str, collection_id: int, batch: int, overlap: bool
) -> WorkerFigures:
    """Tokenize-only pass, then the real ingest pass, over the same texts (in this process)."""
    assert _RECOMBINER is not None, "ingest_parallel sets the recombiner before forking"
    texts = [_RECOMBINER.variant(i).text for i in ids]
    # The corpus inherited from the parent (every real analysis, millions of objects) is not
    # something a Celery worker holds; without this, each full collection triggered by the
    # analysis scans it all (a Celery worker freezes its start-up objects likewise).
    # Set up as a Celery worker process is (config/celery.py): the segmenter's dictionary and
    # NLTK's Punkt loaded before the first document, outside the timings.
    warm_up(detector_config(), checks=False)  # it only analyses
    gc.freeze()
    started = time.perf_counter()
    for text in texts:
        token_spans(text)
    tokenize_seconds = time.perf_counter() - started
    config = detector_config()
    index = PostgresSentenceIndex(model_version=analyze("a", config).model_version, using=alias)
    analyze_seconds = 0.0
    database: list[float] = []
    writer_cpu: list[float] = []
    pending: deque[Future[int]] = deque()
    written: list[int] = []
    begun = time.perf_counter()
    with ThreadPoolExecutor(max_workers=1) as writer:
        for at in range(0, len(ids), batch):
            started = time.perf_counter()
            share = zip(ids[at : at + batch], texts[at : at + batch], strict=True)
            chunk = [(document_id(i), t, analyze(t, config)) for i, t in share]
            analyze_seconds += time.perf_counter() - started
            pending.append(writer.submit(_write, index, collection_id, chunk, database, writer_cpu))
            # At most IN_FLIGHT batches analysed and not yet written (none, sequentially):
            # bounded memory, errors surface here, a slow commit does not stall the analysis.
            while len(pending) > (IN_FLIGHT if overlap else 0):
                written.append(pending.popleft().result())
        while pending:
            written.append(pending.popleft().result())
        writer.submit(connections.close_all).result()  # the writer thread's connection
    postings = sum(written)
    ingest_seconds = time.perf_counter() - begun
    connections.close_all()
    return WorkerFigures(
        documents=len(ids),
        megabytes=sum(len(t.encode()) for t in texts) / 1e6,
        postings=postings,
        tokenize_seconds=tokenize_seconds,
        analyze_seconds=analyze_seconds,
        database_seconds=sum(database),
        writer_cpu_seconds=sum(writer_cpu),
        ingest_seconds=ingest_seconds,
        max_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    )


def _write(
    index: PostgresSentenceIndex,
    collection_id: int,
    chunk: list[tuple[int, str, DocumentAnalysis]],
    database: list[float],
    writer_cpu: list[float],
) -> int:
    """Rows and postings of one batch, committed (runs in the writer thread, whose Django
    connection is its own)."""
    started, cpu = time.perf_counter(), time.thread_time()
    with transaction.atomic(using=index.using):
        documents_load(index.using, collection_id, chunk)
        written = index.add_many([(i, a) for i, _, a in chunk])
    database.append(time.perf_counter() - started)
    writer_cpu.append(time.thread_time() - cpu)
    return written


def ingest_summary(workers: Sequence[WorkerFigures], wall_seconds: float) -> dict[str, object]:
    """Per-process throughputs (mean over workers) and the ingest/tokenizer ratio."""

    def per_process(seconds: str) -> float:
        return sum(w.megabytes / getattr(w, seconds) for w in workers) / len(workers)

    ingest = [w.megabytes / w.ingest_seconds for w in workers]
    docs = [w.documents / w.ingest_seconds for w in workers]
    tokenizer = per_process("tokenize_seconds")
    mean_ingest = sum(ingest) / len(ingest)
    return {
        "processes": len(workers),
        "documents": sum(w.documents for w in workers),
        "megabytes": round(sum(w.megabytes for w in workers), 3),
        "postings": sum(w.postings for w in workers),
        "wall_seconds": round(wall_seconds, 2),
        "ingest_mb_per_s_per_process": round(mean_ingest, 3),
        "ingest_docs_per_s_per_process": round(sum(docs) / len(docs), 1),
        "analyze_only_mb_per_s_per_process": round(per_process("analyze_seconds"), 3),
        "tokenizer_mb_per_s_per_process": round(tokenizer, 3),
        "ingest_to_tokenizer_ratio": round(mean_ingest / tokenizer, 3),
        "database_seconds_per_process": round(
            sum(w.database_seconds for w in workers) / len(workers), 3
        ),
        "writer_cpu_seconds_per_process": round(
            sum(w.writer_cpu_seconds for w in workers) / len(workers), 3
        ),
        "ingest_seconds_per_process": round(
            sum(w.ingest_seconds for w in workers) / len(workers), 3
        ),
        "workers": [asdict(w) for w in workers],
    }
