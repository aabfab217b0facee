"""A peer on the same archive: datasketch MinHash LSH over word shingles (document level).

MinHash LSH (Broder 1997; Leskovec et al., "Mining of Massive Datasets", ch. 3) gives candidate
*documents* whose shingle sets have estimated Jaccard similarity above a threshold; it finds
no passages.  It is the usual first stage of near-duplicate search, so its indexing throughput
and query latency are the natural yardstick for our index's.  Words come from the same
tokenizer as ours (`detection.words.token_spans`), lower-cased.  In memory, one process.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Sequence

from datasketch import MinHash, MinHashLSH

from benchmarks.latency import percentile, source_recall
from detection.words import token_spans

NUM_PERM = 128
SHINGLE_WORDS = 3
# Partial copies give low whole-document Jaccard; 0.3 keeps documents that share a good part.
THRESHOLD = 0.3
# A second index tuned for far smaller overlaps: what a user of the peer would try next for
# partial copies (more candidates, each still to be aligned to find the passages).
LOW_THRESHOLD = 0.05


def minhash(text: str, tag: int = 0) -> MinHash:
    """MinHash of the document's word 3-shingles (datasketch's default seeded SHA-1 hashing).

    A non-zero `tag` prefixes every shingle: the peer's counterpart of the bench's re-keyed
    rounds (`corpus.rekey`), so both indexes hold the same archive.
    """
    words = [w.lower() for w in token_spans(text)[0]]
    prefix = f"{tag}|" if tag else ""
    shingles = {
        (prefix + " ".join(words[i : i + SHINGLE_WORDS])).encode()
        for i in range(max(1, len(words) - SHINGLE_WORDS + 1))
    }
    signature = MinHash(num_perm=NUM_PERM)
    signature.update_batch(shingles)
    return signature


def peer_benchmark(
    archive: Sequence[tuple[str, int]],
    queries: Sequence[str],
    truth: Sequence[frozenset[int]],
) -> dict[str, object]:
    """Index `archive` (text, tag) in a MinHashLSH, query it with `queries`; figures as a dict.

    `truth[q]`: the archive positions query q copies from; `source_recall` is the mean share
    of them among the query's candidates. The signatures are computed once; the index at
    `LOW_THRESHOLD` is built from the same signatures (its time: insertion only).
    """
    started = time.perf_counter()
    signatures = [minhash(text, tag) for text, tag in archive]
    lsh = _lsh(THRESHOLD, signatures)
    seconds = time.perf_counter() - started
    primary = _queried(lsh, queries, truth)
    low = _queried(_lsh(LOW_THRESHOLD, signatures), queries, truth)
    megabytes = sum(len(t.encode()) for t, _ in archive) / 1e6
    return {
        "method": f"datasketch MinHashLSH, word {SHINGLE_WORDS}-shingles, "
        f"num_perm={NUM_PERM}, threshold={THRESHOLD}, in memory, 1 process",
        "documents": len(archive),
        "index_seconds": round(seconds, 2),
        "index_mb_per_s": round(megabytes / seconds, 3),
        "index_docs_per_s": round(len(archive) / seconds, 1),
        **primary,
        "max_rss_mb_after": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "at_low_threshold": {"threshold": LOW_THRESHOLD, **low},
    }


def _lsh(threshold: float, signatures: Sequence[MinHash]) -> MinHashLSH:
    lsh = MinHashLSH(threshold=threshold, num_perm=NUM_PERM)
    for key, signature in enumerate(signatures):
        lsh.insert(key, signature)
    return lsh


def _queried(
    lsh: MinHashLSH, queries: Sequence[str], truth: Sequence[frozenset[int]]
) -> dict[str, object]:
    latencies: list[float] = []
    found: list[frozenset[int]] = []
    for text in queries:
        begun = time.perf_counter()
        found.append(frozenset(lsh.query(minhash(text))))
        latencies.append((time.perf_counter() - begun) * 1000)
    return {
        "query_p50_ms": round(percentile(latencies, 0.5), 2),
        "query_p95_ms": round(percentile(latencies, 0.95), 2),
        "candidates_p50": percentile([len(f) for f in found], 0.5),
        "source_recall": source_recall(found, truth),
    }
