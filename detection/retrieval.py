"""Term retrieval: candidate sources found by the normalised words a disguised copy keeps.

A machine-translation round trip or a heavy paraphrase keeps few of the word chains that
Low-IDF-Sig features are made of, so its source can share almost no feature with it and is
never a candidate. It still shares content words once they are normalised
(:mod:`detection.lexicon`: stems, Chinese synonyms folded). The PAN source-retrieval systems
find such sources by querying the archive with chunks of the suspicious document; this
module does the same inside the one inverted index, when ``DetectorConfig.retrieval_top``
is set (off by default: the term postings double the index's; docs/detection.md):

- At :func:`detection.analyze` every document gets its distinct terms with their counts
  (``DocumentAnalysis.terms``, ids by :func:`detection.lexicon.term_id`). The index stores
  one *term posting* per (term, document): the reference's sentence field holds the
  document's vector norm (scaled by :data:`detection.index.NORM_SCALE`), its size field the
  term's count (:func:`detection.index.term_refs`).
- A check slides a window of ``retrieval_window`` sentence units over the query (half a
  window apart) and ranks the sources by the cosine of tf-idf vectors (``1 + ln tf``, idf
  over the scope's documents, terms in more than ``retrieval_df_fraction`` of them left
  out); the ``retrieval_top`` best of every window are candidates of the disguised-copy
  stage (:func:`term_candidates`). The windows' scores are one sparse matrix product per
  block of windows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

import numpy as np
from scipy import sparse

from detection.config import DetectorConfig
from detection.index import NORM_SCALE, SentenceIndex, unpack_refs
from detection.lexicon import term_id
from detection.seeding import Units

__all__ = ["term_candidates"]


# A long query is looked up this many windows at a time: the postings of one block's terms
# are in memory at once, not those of a whole book's (the windows' scores are the same).
BLOCK_WINDOWS = 1_000


def term_candidates(
    units: Units, index: SentenceIndex, *, exclude: Collection[int], config: DetectorConfig
) -> set[int]:
    """The sources among the ``retrieval_top`` closest to some window of the query's units."""
    if config.retrieval_top is None or not len(units):
        return set()
    count = index.document_count()
    if not count:
        return set()
    rows = [[term_id(t) for t in unit] for unit in units.terms]
    step = max(1, config.retrieval_window // 2)
    block = BLOCK_WINDOWS * step
    excluded = np.fromiter(exclude, np.int64, len(exclude))
    chosen: set[int] = set()
    for first in range(0, len(rows), block):
        # The block's windows start in [first, first + block) and reach a window further.
        part = rows[first : first + block + config.retrieval_window]
        chosen |= _closest(part, min(block, len(part)), index, count, excluded, config)
    return chosen


def _closest(
    rows: list[list[int]],
    starts: int,
    index: SentenceIndex,
    count: int,
    excluded: np.ndarray,
    config: DetectorConfig,
) -> set[int]:
    """The ``retrieval_top`` sources closest to each window starting before ``starts``."""
    asked = np.unique(np.fromiter((t for row in rows for t in row), np.int64))
    if not len(asked):
        return set()
    limit = max(config.max_df_floor, int(config.retrieval_df_fraction * count))
    found = index.term_postings(asked, max_df=limit)
    documents, norms, tfs = unpack_refs(found.refs)
    kept = ~np.isin(documents, excluded)
    features, documents, norms, tfs = found.features[kept], documents[kept], norms[kept], tfs[kept]
    if not len(features):
        return set()
    terms, columns, df = np.unique(features, return_inverse=True, return_counts=True)
    idf = np.log((count + 1) / (df + 1)) + 1.0
    sources, source_rows = np.unique(documents, return_inverse=True)
    weights = (1.0 + np.log(tfs)) * idf[columns] / (norms / NORM_SCALE)
    matrix = sparse.csr_matrix((weights, (columns, source_rows)), shape=(len(terms), len(sources)))
    scores = _windows(rows, starts, terms, idf, config.retrieval_window) @ matrix
    chosen: set[int] = set()
    for row in range(scores.shape[0]):
        start, end = scores.indptr[row], scores.indptr[row + 1]
        if end > start:
            values = scores.data[start:end]
            best = np.argsort(-values, kind="stable")[: config.retrieval_top]
            chosen.update(sources[scores.indices[start:end][best]].tolist())
    return chosen


def _windows(
    rows: list[list[int]], starts: int, terms: np.ndarray, idf: np.ndarray, width: int
) -> sparse.csr_matrix:
    """Unit tf-idf vectors (``1 + ln tf``) of the windows of ``width`` units, half a window
    apart, starting before ``starts``, over ``terms`` (the query's terms with postings)."""
    step = max(1, width // 2)
    data: list[float] = []
    indices: list[int] = []
    indptr = [0]
    for first in range(0, starts, step):
        counted = Counter(t for row in rows[first : first + width] for t in row)
        ids = np.fromiter(counted, np.int64, len(counted))
        at = np.searchsorted(terms, ids)
        known = (at < len(terms)) & (terms[np.minimum(at, len(terms) - 1)] == ids)
        at = at[known]
        tf = np.fromiter(counted.values(), np.float64, len(counted))[known]
        values = (1.0 + np.log(tf)) * idf[at]
        norm = float(np.sqrt(values @ values))
        if norm > 0:
            data.extend((values / norm).tolist())
            indices.extend(at.tolist())
        indptr.append(len(indices))
    return sparse.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, len(terms)))
