"""The archive-at-scale benchmark behind `python manage.py bench` (see docs/benchmarks.md).

Steps, in one run:
1. read the dev prose and analyse it (real `analyze`, all worker processes);
2. recreate the benchmark database and ingest a REAL subset end to end in worker processes
   (tokenizer-only pass and ingest pass on the same texts, per process);
3. grow the archive to each size with recombined variants whose analyses are composed from the
   base analyses (agreement with a real `analyze` is measured and reported), through
   `PostgresSentenceIndex.add_many`; at each size measure lookup and full-check latency of
   10,000-character query documents, postings and size on disk;
4. index the first `peer_docs` documents in datasketch MinHash LSH and query it the same way.
"""

from __future__ import annotations

import gc
import os
import platform
import resource
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks import corpus, cpu, database, ingest, latency, peers
from detection import DEFAULT_CONFIG, analyze
from documents.detector_config import detector_config
from documents.index.store import DF_TABLE, POSTING_TABLE

QUERY_CHARS = 10_000


HEADLINE_PASSES = 3  # overlapped ingest passes; the headline is the median
TARGET_POSTINGS = 10_000_000


@dataclass(frozen=True)
class BenchOptions:
    sizes: tuple[int, ...]
    ingest_docs: int
    queries: int
    processes: int
    batch: int
    ingest_batch: int
    peer_docs: int
    data_dir: Path
    database: str
    base_docs: int = 0  # 0: every real document; else an even sample of that many
    explain: bool = True
    batch_pairs: int = 200  # documents of the all-pairs batch
    distinct_rounds: bool = True  # see corpus.Recombiner
    ingest_processes: int = 1  # workers of the headline ingest passes (a core left for PostgreSQL)


def bench_run(options: BenchOptions, log: object = None) -> dict[str, object]:
    """Run every step and return the report (a JSON-serialisable dict)."""
    say = log if callable(log) else (lambda message: None)
    begun = time.perf_counter()
    recombiner, base_figures = _bases(options, say)
    agreement = _agreement(recombiner)
    alias = database.bench_database_open(options.database)
    collection_id = database.bench_collection(alias)
    ingest_ids = list(range(min(options.ingest_docs, options.sizes[0])))
    ingest_figures = _ingest(recombiner, options, alias, collection_id, ingest_ids, say)
    query_texts = [
        recombiner.query(q, target_chars=QUERY_CHARS).text for q in range(options.queries)
    ]
    queries = [analyze(text, detector_config()) for text in query_texts]
    # The archive documents each worst-case query copies from (archive positions).
    truth = [recombiner.query_sources(q, target_chars=QUERY_CHARS) for q in range(options.queries)]
    typical = [
        recombiner.typical_query(q, target_chars=QUERY_CHARS).analysis
        for q in range(options.queries)
    ]
    # The harness's own long-lived objects (the real corpus and its analyses, the queries:
    # ~10^5-10^6 tracked objects a Celery worker does not hold) leave the collector's view:
    # otherwise every full collection scans them and lands in a random timed lookup, several
    # times its usual time. Garbage is still collected.
    gc.collect()
    gc.freeze()
    curve, load = _grow(
        recombiner,
        options,
        alias,
        collection_id,
        len(ingest_ids),
        (queries, typical, query_texts),
        say,
        truth,
    )
    say(f"all-pairs inside a batch of {options.batch_pairs} documents")
    last = max(options.sizes)
    batch_ids = range(last - options.batch_pairs, last)
    all_pairs = latency.batch_all_pairs(
        alias, [(corpus.document_id(i), recombiner.variant(i).analysis) for i in batch_ids]
    )
    removal = latency.remove_latency(
        latency.timed_index(alias, queries[0].model_version, latency.LoadClock()),
        [(corpus.document_id(i), recombiner.variant(i).analysis) for i in batch_ids[:20]],
    )
    say(f"peer: datasketch on {options.peer_docs} documents")
    peer = peers.peer_benchmark(
        [(recombiner.variant(i).text, recombiner.round_of(i)) for i in range(options.peer_docs)],
        [recombiner.query(q, target_chars=QUERY_CHARS).text
         for q in range(options.queries)],
        [frozenset(i for i in sources if i < options.peer_docs) for sources in truth],
    )  # fmt: skip
    report: dict[str, object] = {
        "machine": _machine(),
        "corpus": {**base_figures, "composed_analysis_agreement": agreement},
        "ingest": ingest_figures,
        "copy_load": load,
        "curve": curve,
        "batch_all_pairs": all_pairs,
        "remove_at_largest_size": removal,
        "peer": {**peer, "ours_at_same_size": _point(curve, options.peer_docs)},
        "targets": _targets(curve, ingest_figures, load),
        "main_process_max_rss_mb": _rss(),
        "total_seconds": round(time.perf_counter() - begun, 1),
        "method": METHOD,
    }
    if options.explain:
        report["lookup_plan_at_largest_size"] = _plan(alias, queries[0])
    return report


METHOD = {
    "ingest": "REAL documents (the first dev-data files, unmodified): per worker process, "
    "tokenizer-only pass (detection.words.token_spans) then analyze + Document rows (text, "
    "sentence spans) by COPY (documents.index.rows.rows_copy, the bulk import's writer) + "
    "PostgresSentenceIndex.add_many (COPY postings + "
    "mark indexed), committed per batch; MB = 10^6 bytes of UTF-8 text; per-process = that "
    "process's bytes / the wall time of its ingest pass. Headline: ingest_processes workers "
    "(default: one core left for PostgreSQL, as a database server has its own CPU) with the "
    "writes overlapped in a writer thread; 'sequential': same workers, no overlap; "
    "'all_cores': a worker per core, overlapped (PostgreSQL competes with the workers)",
    "archive": "documents beyond the ingest subset are recombined runs of 3-8 consecutive real "
    "sentences (blake2b-keyed choice) whose analyses are COMPOSED from the base analyses (no "
    "analyze() call); loaded by the same add_many in one process; Document.text left empty. "
    "distinct_rounds: documents i >= (number of real documents) have their features re-keyed "
    "per round (XOR with a blake2b round key), standing for other corpora with the same "
    "statistics, except features common in the real documents (df above the detector's limit "
    "for that many documents: common_real_features), which stay shared so their df grows "
    "with the archive; otherwise every real sentence recurs archive_size/real_documents times",
    "copy_load": "postings_per_s_copy = postings / time inside _copy_postings (COPY BINARY); "
    "postings_per_s_add_many adds marking documents indexed and ANALYZE (no df at ingest: "
    "lookups record the heavy features, migration 0019)",
    "latency": "WORST CASE (the curve's own lookup/check figures, the targets): query = a "
    "10,000-character recombination of real text copied ENTIRELY from ~90 archive documents "
    "(not itself in the archive), analysed for real; TYPICAL (curve[].typical): 10,000 "
    "characters of text not in the archive (a recombination re-keyed with a round no archive "
    "document uses, common features kept) with 3 runs of 3-8 real archive sentences inserted, "
    "analysis composed; lookup = one postings() call with all its features and the detector's "
    "max_df; check = detection.detect (lookup + candidate pairs + scoring + sequence matching + "
    "spans); unscoped index (the whole archive); after what a bulk import does at its end "
    "(the heavy features recorded: curve[].heavy_features_recording; VACUUM (ANALYZE)), the "
    "document rows vacuumed and BRIN ranges summarised (no autovacuum work left: "
    "curve[].autovacuum_runs_during_latency) and a CHECKPOINT "
    "(curve[].checkpoint_before_latency: false when the role may not run one); nearest-rank "
    "percentiles. curve[].cpu_during_latency: shares of all CPUs' time over the worst-case "
    "timings from /proc/stat (busy = running; steal = the hypervisor running something else "
    "while this machine's CPUs had work), null where there is no /proc/stat",
    "refined_check": "refined_check_*: detection.detect_refined on the worst-case queries "
    "(lookup, word-level borders, the disguised-copy stage over every candidate source), "
    "source texts from memory, each source's sentence units made during the check (the first "
    "pass of the process: the term caches cold); refined_check_warm_*: the same again (caches "
    "warm); refined_check_units_*: the same with the units kept in the database "
    "(documents.sources.StoredUnits, as the app does): a first pass writes the candidates' "
    "units (units_written), a second reads them (units_stored)",
    "batch_all_pairs": "the last batch_pairs archive documents (recombined) as one collection: "
    "each checked with detection.detect against an index scoped to the batch, excluding "
    "itself (the app's path), wall time for the whole batch",
    "peer": "datasketch MinHashLSH on the first peer_docs archive documents (their texts), "
    "queried with the same query texts, at its threshold and at a low one (same signatures); "
    "ours_at_same_size is our curve point of that size. source_recall (ours and the peer's): "
    "mean share of the archive documents a worst-case query copies its runs from that the "
    "check reports passages from (ours) or returns as candidates (the peer)",
}


def _ingest(recombiner, options, alias, collection_id, ids, say) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The real documents ingested several times on the same texts, each pass but the last
    deleted afterwards (the trigger of migration 0003 taking their postings back out) and
    vacuumed: with `ingest_processes` workers sequentially, with all cores' workers and the
    writes overlapped (no core left for PostgreSQL), and HEADLINE_PASSES times with
    `ingest_processes` workers and the writes overlapped. The headline is the pass of median
    ratio (one pass moves by up to ±30 % on a shared VM: checkpoints, autovacuum, neighbours);
    every pass's ratio is listed. The last pass is kept: the archive's first documents."""
    passes = [("sequential", options.ingest_processes, False)]
    if options.processes != options.ingest_processes:
        passes.append(("all_cores", options.processes, True))
    passes += [(f"overlapped_{k}", options.ingest_processes, True) for k in range(HEADLINE_PASSES)]
    figures = {}
    for number, (name, processes, overlap) in enumerate(passes):
        say(f"ingesting {len(ids)} real documents in {processes} processes ({name})")
        started = time.perf_counter()
        workers = ingest.ingest_parallel(
            recombiner, alias=alias, collection_id=collection_id, ids=ids,
            processes=processes, batch=options.ingest_batch, overlap=overlap,
        )  # fmt: skip
        figures[name] = summary = ingest.ingest_summary(workers, time.perf_counter() - started)
        say(
            f"  {name}: ratio {summary['ingest_to_tokenizer_ratio']}, tokenizer"
            f" {summary['tokenizer_mb_per_s_per_process']} MB/s, analysis alone"
            f" {summary['analyze_only_mb_per_s_per_process']} MB/s, database busy"
            f" {summary['database_seconds_per_process']} s of"
            f" {summary['ingest_seconds_per_process']} s"
        )
        if number < len(passes) - 1:
            database.documents_delete(alias, [corpus.document_id(i) for i in ids])
    headlines = [figures.pop(f"overlapped_{k}") for k in range(HEADLINE_PASSES)]
    ratios = [float(h["ingest_to_tokenizer_ratio"]) for h in headlines]  # type: ignore[arg-type]
    median = sorted(headlines, key=lambda h: h["ingest_to_tokenizer_ratio"])[len(headlines) // 2]  # type: ignore[arg-type, return-value]
    return {**median, "overlapped_pass_ratios": ratios, **figures}


def _bases(options: BenchOptions, say) -> tuple[corpus.Recombiner, dict[str, object]]:  # type: ignore[no-untyped-def]
    prose = corpus.read_prose(options.data_dir)
    if 0 < options.base_docs < len(prose):
        step = len(prose) / options.base_docs
        prose = [prose[int(k * step)] for k in range(options.base_docs)]
    say(f"analysing {len(prose)} real documents in {options.processes} processes")
    started = time.perf_counter()
    analyses = ingest.analyze_texts([text for _, text in prose], options.processes)
    seconds = time.perf_counter() - started
    bases = [corpus.BaseDocument(p, t, a) for (p, t), a in zip(prose, analyses, strict=True)]
    megabytes = sum(len(t.encode()) for _, t in prose) / 1e6
    recombiner = corpus.Recombiner(bases, distinct_rounds=options.distinct_rounds)
    return recombiner, {
        "data_dir": str(options.data_dir),
        "real_documents": len(prose),
        "real_megabytes": round(megabytes, 2),
        "real_analysis_seconds_all_processes": round(seconds, 2),
        "distinct_rounds": options.distinct_rounds,
        "common_real_features": len(recombiner.common),
        "model_version": analyses[0].model_version,
        "sentences_per_document": round(sum(len(a.sentences) for a in analyses) / len(analyses), 1),
        "postings_per_document": round(
            sum(len(s.features) for a in analyses for s in a.sentences) / len(analyses), 1
        ),
        "term_postings_per_document": round(sum(len(a.terms) for a in analyses) / len(analyses), 1),
    }


def _agreement(recombiner: corpus.Recombiner, sample: int = 40) -> dict[str, float]:
    """Composed vs real analysis of recombined variants (share of real features reproduced)."""
    first = len(recombiner.bases)
    pairs = [(v.analysis, analyze(v.text, detector_config())) for v in (
        recombiner.unkeyed(first + 97 * k) for k in range(sample)
    )]  # fmt: skip
    values = [corpus.composed_agreement(*pair) for pair in pairs]
    terms = [corpus.composed_term_agreement(*pair) for pair in pairs]
    return {
        "sample": sample, "mean": round(sum(values) / sample, 4), "min": round(min(values), 4),
        "terms_mean": round(sum(terms) / sample, 4), "terms_min": round(min(terms), 4),
    }  # fmt: skip


def _variant_text(recombiner: corpus.Recombiner) -> Callable[[int], str]:
    """An archive document's text by its Document id (the text its analysis was made from)."""
    return lambda document: recombiner.variant(document - 1).text


def _grow(recombiner, options, alias, collection_id, loaded, queries, say, truth):  # type: ignore[no-untyped-def]
    """Grow the archive size by size; measure at each size. Returns (curve, COPY figures)."""
    queries, typical, texts = queries
    version = queries[0].model_version
    clock = latency.LoadClock()
    index = latency.timed_index(alias, version, clock)
    curve = []
    for size in sorted(set(options.sizes)):
        say(f"growing the archive to {size} documents")
        previous = 0 if not curve else loaded  # the first size adds the ingested ones too
        latency.archive_grow(
            recombiner, index, clock, collection_id=collection_id,
            ids=range(loaded, size), batch=options.batch, store_text=False,
        )  # fmt: skip
        loaded = max(loaded, size)
        # What a bulk import does at its end (archive_import.index_refresh_after_import):
        # statistics and the visibility map fresh (what autovacuum does after 2 % new
        # postings, migration 0004), so lookups get Index Only Scans, then the heavy features
        # of the documents added recorded (no check has met them).
        index.vacuum()
        added = [corpus.document_id(i) for i in range(previous, size)]
        started = time.perf_counter()
        heavy_recorded = index.record_heavy_features(added)
        heavy_seconds = time.perf_counter() - started
        index.vacuum(postings=False)
        database.settle(alias)
        database.sequences_reset(alias)
        # The load's dirty pages written before the timings, as pgbench does: otherwise the
        # checkpoint that the load's WAL triggers spreads its writes (GBs, minutes) over the
        # measurements of the next sizes.
        checkpointed = database.checkpoint(alias)
        say(f"measuring latency at {size} documents")
        autovacuum_before = database.autovacuum_runs(alias)
        cpu_before = cpu.cpu_times()
        measured = latency.check_latency(index, queries)
        cpu_during = cpu.cpu_shares(cpu_before, cpu.cpu_times())
        # The sources present at this size (the real documents are the first ones loaded).
        present = [frozenset(corpus.document_id(i) for i in t if i < size) for t in truth]
        point = _curve_point(alias, size, measured, present)
        point["checkpoint_before_latency"] = checkpointed
        point["cpu_during_latency"] = cpu_during
        point["heavy_features_recording"] = {
            "seconds": round(heavy_seconds, 2),
            "features_recorded_or_raised": heavy_recorded,
        }
        point["typical"] = latency.latency_summary(latency.check_latency(index, typical))
        # The check a user waits for: with the texts, word borders and disguised copies.
        refined = latency.refined_check_ms(
            index, list(zip(texts, queries, strict=True)), _variant_text(recombiner)
        )
        point["refined_check_p50_ms"] = round(latency.percentile(refined, 0.5), 2)
        point["refined_check_p95_ms"] = round(latency.percentile(refined, 0.95), 2)
        point.update(_stored_units_check(index, list(zip(texts, queries, strict=True)), recombiner))
        after = database.autovacuum_runs(alias)
        point["autovacuum_runs_during_latency"] = {
            table: runs - autovacuum_before.get(table, 0)
            for table, runs in sorted(after.items())
            if runs > autovacuum_before.get(table, 0)
        }
        curve.append(point)
    load = {
        "documents": clock.documents,
        "postings": clock.postings,
        "batch_documents": options.batch,
        "postings_per_s_copy": round(clock.postings / clock.copy) if clock.copy else None,
        "postings_per_s_add_many": round(clock.postings / clock.add_many)
        if clock.add_many
        else None,
        "copy_seconds": round(clock.copy, 2),
        "add_many_seconds": round(clock.add_many, 2),
        "analyze_seconds": round(clock.analyze, 2),
        "document_and_sentence_rows_seconds": round(clock.rows_and_sentences, 2),
    }
    return curve, load


def _stored_units_check(index, queries, recombiner) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """The refined check again (warm), then with the sources' sentence units kept in the
    database, as the app keeps them (`documents.sources.StoredUnits`): the first pass over
    the queries makes and writes the units of their candidates, the second reads them. The
    store ties units to the md5 of the text in the database, where archive documents beyond
    the ingested ones have none (`store_text=False`): the store is given that text, the
    check the real one."""
    from documents.models import Document
    from documents.sources import StoredUnits

    stored_text = dict(Document.objects.using(index.using).values_list("id", "text"))
    store = StoredUnits(lambda document: stored_text.get(document, ""), using=index.using)
    text = _variant_text(recombiner)
    # The same check again without a store: the term caches are warm now, as for the passes
    # with a store, so it is the one to compare them with.
    warm = latency.refined_check_ms(index, queries, text)
    first = latency.refined_check_ms(index, queries, text, unit_store=store)
    again = latency.refined_check_ms(index, queries, text, unit_store=store)
    return {
        "refined_check_warm_p50_ms": round(latency.percentile(warm, 0.5), 2),
        "refined_check_warm_p95_ms": round(latency.percentile(warm, 0.95), 2),
        "refined_check_units_written_p50_ms": round(latency.percentile(first, 0.5), 2),
        "refined_check_units_stored_p50_ms": round(latency.percentile(again, 0.5), 2),
        "refined_check_units_stored_p95_ms": round(latency.percentile(again, 0.95), 2),
    }


def _curve_point(
    alias: str, size: int, measured: latency.Latency, truth: list[frozenset[int]]
) -> dict[str, object]:
    postings = int(database.scalar(alias, f"SELECT count(*) FROM {POSTING_TABLE}"))  # type: ignore[call-overload]
    posting_bytes = database.relation_bytes(alias, POSTING_TABLE)
    df_bytes = database.relation_bytes(alias, DF_TABLE)
    return {
        "documents": size,
        "postings": postings,
        "heavy_features_recorded": database.scalar(alias, f"SELECT count(*) FROM {DF_TABLE}"),
        "max_df": DEFAULT_CONFIG.max_df(size),
        "posting_bytes": posting_bytes,
        "df_table_bytes": df_bytes,
        "posting_mb_per_million_postings": round(posting_bytes / 1e6 / (postings / 1e6), 1),
        **latency.latency_summary(measured, truth),
    }


def _point(curve: list[dict[str, object]], size: int) -> dict[str, object] | None:
    keys = ("documents", "postings", "lookup_p50_ms", "lookup_p95_ms", "check_p50_ms",
            "check_p95_ms", "source_recall")  # fmt: skip
    for point in curve:
        if point["documents"] == size:
            return {k: point[k] for k in keys}
    return None


def _targets(curve, ingest_figures, load) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """The issue's targets next to what was measured, at the point nearest 10M postings."""
    largest = min(curve, key=lambda point: abs(point["postings"] - TARGET_POSTINGS))
    return {
        "at_documents": largest["documents"],
        "at_postings": largest["postings"],
        "lookup_p95_ms<=10": largest["lookup_p95_ms"] <= 10,
        "check_p95_ms<=300": largest["check_p95_ms"] <= 300,
        "ingest_to_tokenizer_ratio>=0.4": ingest_figures["ingest_to_tokenizer_ratio"] >= 0.4,
        "copy_postings_per_s>=200k": (load["postings_per_s_copy"] or 0) >= 200_000,
        "note": "targets are stated for 10 million postings; compare at_postings. Ingest and "
        "COPY targets use the run's ingest/copy_load figures",
    }


def _plan(alias: str, query) -> list[str]:  # type: ignore[no-untyped-def]
    """EXPLAIN ANALYZE of the very SQL PostgresSentenceIndex.postings issues."""
    from documents.index.store import PostgresSentenceIndex

    index = PostgresSentenceIndex(model_version=query.model_version, using=alias)
    features = {f for s in query.sentences for f in s.features}
    max_df = DEFAULT_CONFIG.max_df(index.document_count())
    heavy = index.heavy_features()  # as postings() does
    sql, params = index.lookup_statement(features, guard=max_df, heavy=heavy)
    return database.explain(alias, sql, params)


def _machine() -> dict[str, object]:
    return {
        "cpus": os.cpu_count(),
        "cpu": _cpu_model(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _rss() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
