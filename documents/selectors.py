"""Reads: what the views, the API and the pipeline need. Who may read what is decided
before, by `documents.policy`."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db.models import Count, F, Q, QuerySet
from django.db.models.expressions import Combinable
from django.db.models.functions import Collate

from detection import model_version
from documents import exclusions
from documents.detector_config import detector_config
from documents.exclusions import Rules
from documents.models import (
    ArchiveImport,
    ArchiveShare,
    Collection,
    Document,
    Match,
    document_path,
)


@dataclass(frozen=True)
class PassageView:
    start: int
    end: int
    source_start: int
    source_end: int
    score: float
    # Why it is left out of the similarity ("quote", "bibliography", "small", "source"), or
    # None when it counts (documents.exclusions).
    excluded: str | None = None
    kind: str = "verbatim"  # verbatim | edited | summary (detection.Passage.kind)


@dataclass(frozen=True)
class SourceView:
    document: int
    title: str
    collection: str
    similarity: float  # of the document's text, counting only passages not excluded
    passages: tuple[PassageView, ...]
    submitted_at: datetime.datetime | None = None
    archive: bool = False  # a document of an archive (always an original)
    # "from_source": the document copied from it (it came first, or is an archive document);
    # "same_time": their submission times cannot tell; "to_source": it copied from the
    # document (submitted later), listed under the report's `copied_by`.
    direction: str = "from_source"
    excluded: bool = False  # left out of this report by the reader (`?exclude_source=`)


class LeftOut(NamedTuple):
    start: int
    end: int
    reason: str  # "quote" | "bibliography"


@dataclass(frozen=True)
class Report:
    document: Document
    similarity: float  # what the document took from its sources, exclusions applied
    sources: tuple[SourceView, ...]
    # Later documents of its collection that hold passages of it that count: they copied from
    # it, so what they share does not raise its similarity.
    copied_by: tuple[SourceView, ...] = ()
    rules: Rules = Rules()
    # The document's quoted and reference-list ranges that `rules` leave out: their
    # characters never count, even inside a passage that does.
    left_out: tuple[LeftOut, ...] = ()


def collection_list(*, among: QuerySet[Collection]) -> QuerySet[Collection]:
    """`among` (what `documents.policy.readable_collections` gives a user) with their
    document counts and workspaces, newest first."""
    # Explicitly: an aggregate query drops the model's default ordering.
    return (
        among.select_related("workspace")
        .annotate(document_count=Count("documents"))
        .order_by("-created_at", "-id")
    )


IMPORTS_LISTED = 20  # an archive's latest imports, on its page and in the API


def import_list(*, collection: Collection) -> QuerySet[ArchiveImport]:
    """The collection's bulk imports, newest first."""
    return ArchiveImport.objects.filter(collection=collection).order_by("-created_at", "-id")


def unfinished_job_ids(jobs: QuerySet) -> list[int]:
    """The ids of the jobs of `jobs` (imports, near-duplicate runs: models with a `queued` /
    `running` status and a collection) left unfinished, outside collections being deleted:
    what start-up queues again when their task was lost."""
    return list(
        jobs.filter(status__in=["queued", "running"], collection__deleting=False).values_list(
            "id", flat=True
        )
    )


def archive_choices(*, collection: Collection) -> QuerySet[Collection]:
    """The archives a collection can be checked against: those of its workspace and those
    shared with it, itself left out."""
    shared = ArchiveShare.objects.filter(workspace_id=collection.workspace_id)
    return Collection.objects.filter(
        Q(workspace_id=collection.workspace_id) | Q(id__in=shared.values("archive_id")),
        kind=Collection.Kind.ARCHIVE,
        deleting=False,
    ).exclude(id=collection.id)


def share_list(*, archive: Collection) -> QuerySet[ArchiveShare]:
    """The workspaces the archive is shared with."""
    return ArchiveShare.objects.filter(archive=archive).select_related("workspace").order_by("id")


# How a collection's documents can be listed: the newest first (the default), the most
# copied first, or by name.
DOCUMENT_ORDERS: dict[str, tuple[str | Combinable, ...]] = {
    "uploaded": ("-created_at", "-id"),
    "similarity": (F("similarity").desc(nulls_last=True), "-id"),
    # Numbers by their value ("student2" before "student10"): migration 0017's collation.
    "name": (Collate("folder", "natural_sort"), Collate("filename", "natural_sort"), "id"),
}


def document_list(*, collection: Collection, order: str = "uploaded") -> QuerySet[Document]:
    """The collection's documents without their texts, in one of `DOCUMENT_ORDERS`."""
    return collection.documents.defer("text", "sentence_starts", "sentence_ends").order_by(
        *DOCUMENT_ORDERS[order]
    )


def document_status_counts(*, collection: Collection) -> dict[str, int]:
    """How many of the collection's documents are in each status (every status listed)."""
    counts = dict(collection.documents.order_by().values_list("status").annotate(n=Count("id")))
    return {status: counts.get(status, 0) for status in Document.Status.values}


def detection_scope_collections(*, document: Document) -> list[int]:
    """Collections a document is checked against: its own (the other submissions) plus the
    archives selected on it (none selected: every archive its workspace can use)."""
    return collection_scope(collection=document.collection)


def collection_scope(*, collection: Collection) -> list[int]:
    """The collection and the archives its documents are checked against: an archive's
    documents only against each other (another archive holds no one's source: checked
    against a later archive, the original would list its own copy as its source)."""
    if collection.kind == Collection.Kind.ARCHIVE:
        return [collection.id]
    if collection.all_archives:
        archives = archive_choices(collection=collection)
    else:  # the chosen ones still there, maybe none
        archives = archives_chosen(collection=collection)
    return [collection.id, *archives.values_list("id", flat=True)]


def archives_chosen(*, collection: Collection) -> QuerySet[Collection]:
    """The archives chosen for the collection that still are archives and not being deleted
    (with `all_archives` none are chosen)."""
    return collection.archives.filter(kind=Collection.Kind.ARCHIVE, deleting=False).order_by("id")


def checked_documents(*, collection_id: int) -> QuerySet[Document]:
    """The collection's documents that are checked: all but its templates."""
    return Document.objects.filter(collection_id=collection_id, template=False)


def current_model_version() -> str:
    """The feature model that analyses are made with now (see `documents_stale`)."""
    return model_version(detector_config())


def documents_stale(*, collections: list[int] | None = None) -> QuerySet[Document]:
    """Processed documents analysed with another feature model than the current one (an
    upgrade changed the tokenizer, the IDF list or the hashing): the index compares documents
    of one model only, so these are left out of every check until they are analysed again
    (`services.documents_reanalyze`). All collections, or only `collections`."""
    stale = Document.objects.filter(
        status=Document.Status.DONE, collection__deleting=False
    ).exclude(model_version=current_model_version())
    return stale if collections is None else stale.filter(collection_id__in=collections)


@dataclass(frozen=True)
class PairView:
    """Two documents that share passages: `document` is in the collection; `other` is
    another submission of it (then both shares are known) or a document of an archive."""

    document: int
    title: str
    other: int
    other_title: str
    other_collection: str
    # Of the document's text found in the other; None for an archive document copied by
    # another collection's document (only the copier's share is measured).
    share: float | None
    other_share: float | None  # of the other's text found in the document (when measured)
    passages: int
    # True when `other` copied from `document` (an archive's document and its copier).
    copied_by_other: bool = False
    # Who copied whom by submission time (`exclusions.direction`): "a_from_b" (`document`
    # copied from `other`: other was first, or is an archive's), "b_from_a", "same_time".
    direction: str = "a_from_b"

    @property
    def strongest(self) -> float:
        return max(self.share or 0.0, self.other_share or 0.0)

    @property
    def report_document(self) -> int:
        """The copier: its report shows the pair side by side (`?source=report_source`)."""
        return self.other if self.direction == "b_from_a" else self.document

    @property
    def report_source(self) -> int:
        return self.document if self.direction == "b_from_a" else self.other


def collection_pairs(
    *, collection: Collection, visible: QuerySet[Collection] | None = None, minimum: float = 0.0
) -> list[PairView]:
    """Every pair of documents sharing passages that involves a document of the collection,
    once (a pair of submissions is stored in both directions: one row with both shares, the
    larger first), most copied first; pairs whose larger share is below `minimum` left out,
    pairs sharing only text their collections' exclusions leave out, and pairs with a
    document outside the `visible` collections (a shared archive's copiers in other
    workspaces)."""
    # Both directions: an archive's documents are the sources of other collections' matches.
    involved = Q(document__collection=collection) | Q(source__collection=collection)
    matches = Match.objects.filter(involved, source__collection__deleting=False)
    if visible is not None:
        matches = matches.filter(document__collection__in=visible, source__collection__in=visible)
    rows = (
        matches.filter(document__collection__deleting=False)
        .values(
            "document_id",
            "document__folder",
            "document__filename",
            "source_id",
            "source__folder",
            "source__filename",
            "source__collection_id",
            "source__collection__name",
            "document__collection_id",
            "document__collection__name",
            "document__submitted_at",
            "source__submitted_at",
            "similarity",
        )  # fmt: skip
        .annotate(passage_count=Count("passages"))
        .order_by()
    )
    shares: dict[tuple[int, int], float] = {}
    found: dict[tuple[int, int], Mapping[str, Any]] = {}
    row: Mapping[str, Any]
    for row in rows:
        shares[row["document_id"], row["source_id"]] = row["similarity"]
        found[row["document_id"], row["source_id"]] = row
    pairs: list[PairView] = []
    for (document, other), row in found.items():
        back = shares.get((other, document))
        if back is not None and (back, other) > (row["similarity"], document):
            continue  # listed from the other side, where its larger share is
        pair = _pair(row, back, copier_outside=row["document__collection_id"] != collection.id)
        # Both shares 0: all they share is excluded (a reference list, a quotation).
        if pair.strongest > 0 and pair.strongest >= minimum:
            pairs.append(pair)
    pairs.sort(key=lambda p: (-p.strongest, -(p.other_share or 0.0), p.document, p.other))
    return pairs


def _pair(row: Mapping[str, Any], back: float | None, *, copier_outside: bool) -> PairView:
    """A match row as a pair whose `document` is in the collection: an archive's document
    copied by another collection's document comes first, the copier second."""
    copier = (row["document_id"], document_path(row["document__folder"], row["document__filename"]))
    source = (row["source_id"], document_path(row["source__folder"], row["source__filename"]))
    if copier_outside:
        return PairView(
            document=source[0], title=source[1], other=copier[0], other_title=copier[1],
            other_collection=row["document__collection__name"], share=back,
            other_share=row["similarity"], passages=row["passage_count"], copied_by_other=True,
            direction="b_from_a",
        )  # fmt: skip
    direction = exclusions.direction(
        row["document__submitted_at"],
        row["source__submitted_at"],
        second_is_archive=row["source__collection_id"] != row["document__collection_id"],
    )
    return PairView(
        document=copier[0], title=copier[1], other=source[0], other_title=source[1],
        other_collection=row["source__collection__name"], share=row["similarity"],
        other_share=back, passages=row["passage_count"], direction=direction,
    )  # fmt: skip


def report_get(*, document: Document, rules: Rules | None = None) -> Report:
    """The sources of a processed document, most copied first, with their passages, each
    classified by the exclusions `rules` (default: its collection's settings); later
    documents of its collection that took its passages are listed apart as `copied_by`."""
    rules = rules if rules is not None else Rules.of(document.collection)
    citations = exclusions.citations_of(document)
    left_out = rules.ranges(citations)
    matches = (
        Match.objects.filter(document=document, source__collection__deleting=False)
        .select_related("source__collection")
        .prefetch_related("passages")
        .order_by("source_id")
    )
    sources: list[SourceView] = []
    copied_by: list[SourceView] = []
    counted: list[PassageView] = []
    for match in matches:
        passages = tuple(
            PassageView(
                p.start,
                p.end,
                p.source_start,
                p.source_end,
                p.score,
                exclusions.passage_excluded(
                    p,
                    source=match.source_id,
                    text=document.text,
                    citations=citations,
                    rules=rules,
                ),
                p.kind,
            )  # fmt: skip
            for p in match.passages.all()
        )
        kept = [p for p in passages if p.excluded is None]
        view = SourceView(
            document=match.source_id,
            title=document_path(match.source.folder, match.source.filename),
            collection=match.source.collection.name,
            similarity=exclusions.counted_share(len(document.text), kept, left_out),
            passages=passages,
            submitted_at=match.source.submitted_at,
            archive=match.source.collection_id != document.collection_id,
            direction=_direction(document, match.source),
            excluded=match.source_id in rules.sources,
        )
        if view.direction != "to_source":
            sources.append(view)
            counted += kept
        elif kept:  # a later document sharing only excluded text (references) copied nothing
            copied_by.append(view)
    by_share = lambda view: (-view.similarity, view.document)  # noqa: E731
    return Report(
        document=document,
        similarity=exclusions.counted_share(len(document.text), counted, left_out),
        sources=tuple(sorted(sources, key=by_share)),
        copied_by=tuple(sorted(copied_by, key=by_share)),
        rules=rules,
        left_out=tuple(
            sorted(
                [LeftOut(s, e, "quote") for s, e in citations.quotes if rules.quotes]
                + [
                    LeftOut(s, e, "bibliography")
                    for s, e in citations.bibliography
                    if rules.bibliography
                ]
            )
        ),
    )


def report_source_texts(*, report: Report) -> dict[int, str]:
    """The texts of the report's sources and copiers, by id (the evidence report's
    excerpts)."""
    ids = [s.document for s in (*report.sources, *report.copied_by)]
    return dict(Document.objects.filter(id__in=ids).values_list("id", "text"))


def _direction(document: Document, source: Document) -> str:
    """How the document's passages relate to this source (`SourceView.direction`)."""
    if source.collection_id != document.collection_id:
        return "from_source"
    return {"a_from_b": "from_source", "b_from_a": "to_source", "same_time": "same_time"}[
        exclusions.direction(document.submitted_at, source.submitted_at)
    ]


def identical_uploads(*, document: Document) -> list[Document]:
    """The workspace's other uploads of the very same file (same SHA-256), oldest first: a
    re-upload shows as 100 % copied, which the document's page explains with these."""
    return list(
        Document.objects.filter(
            checksum=document.checksum,
            collection__workspace_id=document.collection.workspace_id,
            collection__deleting=False,
        )
        .exclude(id=document.id)
        .select_related("collection")
        .defer("text", "sentence_starts", "sentence_ends")
        .order_by("id")[:20]
    )


def template_ids(*, collections: Sequence[int]) -> set[int]:
    """The templates among the documents of these collections."""
    return set(
        Document.objects.filter(collection_id__in=list(collections), template=True).values_list(
            "id", flat=True
        )
    )


def template_texts(*, collection_id: int) -> dict[int, str]:
    """The collection's templates (text given to every submission) whose text is extracted,
    by id: a template queued again keeps its text, so it is left out meanwhile too."""
    return dict(
        Document.objects.filter(collection_id=collection_id, template=True)
        .exclude(text="")
        .values_list("id", "text")
    )


def copied_by(*, document: Document, visible: QuerySet[Collection] | None = None) -> list[Match]:
    """The matches of documents (of collections not being deleted, and of the `visible` ones
    when given) that copied passages from this one, the largest share first: another
    collection's documents (this is an archive document) and documents of its own collection
    submitted after it (more than `exclusions.SAME_TIME` later), sharing text that counts
    under the copier's collection's exclusions. `match.similarity` is the share of the
    copier's text."""
    later = document.submitted_at + exclusions.SAME_TIME
    own = Q(document__collection_id=document.collection_id)
    matches = Match.objects.filter(
        source=document, document__collection__deleting=False, similarity__gt=0
    ).filter(~own | Q(document__submitted_at__gt=later))
    if visible is not None:
        matches = matches.filter(document__collection__in=visible)
    return list(
        matches.select_related("document__collection").order_by("-similarity", "document_id")[:50]
    )


def source_text_get(*, document: Document, source_id: int) -> Document | None:
    """A source of the document's report (it may live in an archive)."""
    if not Match.objects.filter(
        document=document, source_id=source_id, source__collection__deleting=False
    ).exists():
        return None
    return Document.objects.filter(id=source_id).first()
