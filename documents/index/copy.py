"""Postings as numpy columns, and the rows of a COPY ... (FORMAT BINARY) built from them.

Built column-wise instead of one `write_row` per posting, so the Python side of a COPY costs
a few numpy calls per batch, not a call per posting. A binary COPY row is the field count, then
(length, big-endian value) per column; with no NULLs every row has the same layout, so a
numpy structured array IS the payload.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import NamedTuple, Protocol

import numpy as np

from detection import pack_refs
from detection.index import term_refs

COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # signature, flags, header extension
COPY_TRAILER = b"\xff\xff"

# COPY documents_posting (feature, model, ref): a row is 3 fields of (length, value).
_POSTING_ROW = np.dtype(
    [("fields", ">i2"), ("feature_len", ">i4"), ("feature", ">i8"), ("model_len", ">i4"),
     ("model", ">i2"), ("ref_len", ">i4"), ("ref", ">i8")]
)  # fmt: skip
COPY_COLUMNS = "(feature, model, ref)"


class SentenceLike(Protocol):
    # Read-only properties: the frozen dataclasses of `detection` fit them.
    @property
    def index(self) -> int: ...
    @property
    def features(self) -> Sequence[int]: ...


class AnalysisLike(Protocol):
    @property
    def model_version(self) -> str: ...

    @property
    def sentences(self) -> Sequence[SentenceLike]: ...

    @property
    def terms(self) -> tuple[tuple[int, int], ...]: ...


class PostingColumns(NamedTuple):
    """The postings of some documents as parallel int64 arrays (one element per posting):
    the feature, the document, and the sentence reference (`detection.pack_refs`)."""

    features: np.ndarray
    documents: np.ndarray
    refs: np.ndarray


def posting_columns(items: Sequence[tuple[int, AnalysisLike]]) -> PostingColumns:
    """Flatten documents' sentences and terms (`detection.term_refs`: one posting per term
    and document) into posting columns, without a Python object per posting, sorted by
    feature: each partition's btree then takes the batch's inserts in key order (each leaf
    page visited once per batch, not once per posting)."""
    sentences = [(document, s) for document, analysis in items for s in analysis.sentences]
    count = len(sentences)
    lengths = np.fromiter((len(s.features) for _, s in sentences), np.int64, count)
    total = int(lengths.sum())
    features = np.fromiter(chain.from_iterable(s.features for _, s in sentences), np.int64, total)
    documents = np.fromiter((d for d, _ in sentences), np.int64, count)
    numbers = np.fromiter((s.index for _, s in sentences), np.int64, count)
    refs = pack_refs(documents, numbers, lengths)  # raises for what the fields cannot hold
    expand = np.repeat(np.arange(count), lengths)
    owners, refs = documents[expand], refs[expand]
    terms = [(d, *term_refs(d, a.terms)) for d, a in items if a.terms]
    if terms:  # analysed with term retrieval
        features = np.concatenate([features, *(ids for _, ids, _ in terms)])
        owners = np.concatenate([owners, *(np.full(len(ids), d, np.int64) for d, ids, _ in terms)])
        refs = np.concatenate([refs, *(term for _, _, term in terms)])
    order = np.argsort(features, kind="stable")
    return PostingColumns(features[order], owners[order], refs[order])


def copy_rows(columns: PostingColumns, model: int) -> memoryview:
    """The rows of a binary COPY (without signature and trailer) of `columns`, feature model
    id `model` (the array's own bytes, not a copy: tens of MB for a large document)."""
    rows = np.empty(len(columns.features), dtype=_POSTING_ROW)
    rows["fields"] = 3
    rows["feature_len"] = rows["ref_len"] = 8
    rows["model_len"] = 2
    rows["model"] = model
    rows["feature"] = columns.features
    rows["ref"] = columns.refs
    return rows.view(np.uint8).data


def df_increments(columns: PostingColumns) -> tuple[np.ndarray, np.ndarray]:
    """(features ascending, in how many of the documents each occurs): df counts a feature
    once per document however many of its sentences hold it."""
    if not len(columns.features):
        return columns.features, columns.features
    order = np.lexsort((columns.documents, columns.features))
    features, documents = columns.features[order], columns.documents[order]
    first = np.ones(len(features), dtype=bool)
    first[1:] = (features[1:] != features[:-1]) | (documents[1:] != documents[:-1])
    return np.unique(features[first], return_counts=True)
