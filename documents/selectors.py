"""Reads: what the views, the API and the pipeline need. Who may read what is decided
before, by `documents.policy`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet
from django.db.models.functions import Collate

from detection import model_version
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


@dataclass(frozen=True)
class SourceView:
    document: int
    title: str
    collection: str
    similarity: float
    passages: tuple[PassageView, ...]


@dataclass(frozen=True)
class Report:
    document: Document
    similarity: float
    sources: tuple[SourceView, ...]


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
DOCUMENT_ORDERS = {
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
    return model_version()


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

    @property
    def strongest(self) -> float:
        return max(self.share or 0.0, self.other_share or 0.0)

    @property
    def report_document(self) -> int:
        """The copier: its report shows the pair side by side (`?source=report_source`)."""
        return self.other if self.copied_by_other else self.document

    @property
    def report_source(self) -> int:
        return self.document if self.copied_by_other else self.other


def collection_pairs(
    *, collection: Collection, visible: QuerySet[Collection], minimum: float = 0.0
) -> list[PairView]:
    """Every pair of documents sharing passages that involves a document of the collection,
    once (a pair of submissions is stored in both directions: one row with both shares, the
    larger first), most copied first; pairs whose larger share is below `minimum` left out,
    and pairs with a document outside the `visible` collections (a shared archive's copiers
    in other workspaces)."""
    # Both directions: an archive's documents are the sources of other collections' matches.
    involved = Q(document__collection=collection) | Q(source__collection=collection)
    rows = (
        Match.objects.filter(involved, source__collection__deleting=False)
        .filter(document__collection__deleting=False)
        .filter(document__collection__in=visible, source__collection__in=visible)
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
            "similarity",
        )  # fmt: skip
        .annotate(passage_count=Count("passages"))
        .order_by()
    )
    shares: dict[tuple[int, int], float] = {}
    found: dict[tuple[int, int], dict] = {}
    for row in rows:
        shares[row["document_id"], row["source_id"]] = row["similarity"]
        found[row["document_id"], row["source_id"]] = row
    pairs: list[PairView] = []
    for (document, other), row in found.items():
        back = shares.get((other, document))
        if back is not None and (back, other) > (row["similarity"], document):
            continue  # listed from the other side, where its larger share is
        pair = _pair(row, back, copier_outside=row["document__collection_id"] != collection.id)
        if pair.strongest >= minimum:
            pairs.append(pair)
    pairs.sort(key=lambda p: (-p.strongest, -(p.other_share or 0.0), p.document, p.other))
    return pairs


def _pair(row: dict, back: float | None, *, copier_outside: bool) -> PairView:
    """A match row as a pair whose `document` is in the collection: an archive's document
    copied by another collection's document comes first, the copier second."""
    copier = (row["document_id"], document_path(row["document__folder"], row["document__filename"]))
    source = (row["source_id"], document_path(row["source__folder"], row["source__filename"]))
    if copier_outside:
        return PairView(
            document=source[0], title=source[1], other=copier[0], other_title=copier[1],
            other_collection=row["document__collection__name"], share=back,
            other_share=row["similarity"], passages=row["passage_count"], copied_by_other=True,
        )  # fmt: skip
    return PairView(
        document=copier[0], title=copier[1], other=source[0], other_title=source[1],
        other_collection=row["source__collection__name"], share=row["similarity"],
        other_share=back, passages=row["passage_count"],
    )  # fmt: skip


def report_get(*, document: Document) -> Report:
    """The sources of a processed document, most copied first, with their passages."""
    matches = (
        Match.objects.filter(document=document, source__collection__deleting=False)
        .select_related("source__collection")
        .prefetch_related("passages")
        .order_by("-similarity", "source_id")
    )
    sources = tuple(
        SourceView(
            document=match.source_id,
            title=document_path(match.source.folder, match.source.filename),
            collection=match.source.collection.name,
            similarity=match.similarity,
            passages=tuple(
                PassageView(p.start, p.end, p.source_start, p.source_end, p.score)
                for p in match.passages.all()
            ),
        )
        for match in matches
    )
    return Report(document=document, similarity=document.similarity or 0.0, sources=sources)


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


def copied_by(*, document: Document, visible: QuerySet[Collection]) -> list[Match]:
    """The matches of documents (of `visible` collections) with passages found in this one,
    the largest share first: what an archive document's page shows, since its own
    similarity is what IT copied. `match.similarity` is the share of the copier's text."""
    return list(
        Match.objects.filter(source=document, document__collection__in=visible)
        .select_related("document__collection")
        .order_by("-similarity", "document_id")[:50]
    )


def source_text_get(*, document: Document, source_id: int) -> Document | None:
    """A source of the document's report (it may live in an archive)."""
    if not Match.objects.filter(
        document=document, source_id=source_id, source__collection__deleting=False
    ).exists():
        return None
    return Document.objects.filter(id=source_id).first()
