"""JSON API (token or session auth). Views parse input and call one service or selector."""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import asdict

from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import status
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from core.schema import ListOrPage
from documents import evidence, policy, selectors, services
from documents import verdicts as verdict_reads
from documents.bulk import jobs as imports
from documents.exclusions import rules_from_query
from documents.models import Collection, Document
from documents.serializers import (
    ArchiveImportSerializer,
    ArchivesSerializer,
    BatchCreatedSerializer,
    CollectionCreateSerializer,
    CollectionProgressSerializer,
    CollectionSerializer,
    CollectionUpdateSerializer,
    DocumentCreatedSerializer,
    DocumentProgressSerializer,
    DocumentStatusSerializer,
    DocumentSummarySerializer,
    DocumentUpdateSerializer,
    DocumentUploadSerializer,
    ImportUploadSerializer,
    NoReportSerializer,
    PairSerializer,
    ReportSerializer,
)
from workspaces import policy as workspace_policy


class DocumentPages(LimitOffsetPagination):
    """Pages only when asked (`?limit=` or `?offset=`); without either the whole list, as
    before pages existed. An offset alone gets pages of `max_limit`."""

    max_limit = 1000

    def get_limit(self, request: Request) -> int | None:
        limit = super().get_limit(request)
        if limit is None and self.offset_query_param in request.query_params:
            return self.max_limit
        return limit


_NUMBER = re.compile(r"[0-9]{1,9}")
_PAGE_PARAMETERS = [
    OpenApiParameter("limit", int, description="page size (then the answer is a page)"),
    OpenApiParameter("offset", int, description="items to skip (pages of 1000 without limit)"),
]


def _listed(
    request: Request, view: APIView, items: Sequence | QuerySet, serializer: type[Serializer]
) -> Response:
    """All `items`, or with `limit`/`offset` one page `{"count", "next", "previous",
    "results"}`; a limit or offset that is not a number is a 400."""
    for name in ("limit", "offset"):
        value = request.query_params.get(name)
        valid = value is None or (_NUMBER.fullmatch(value) and (name == "offset" or int(value)))
        if not valid:
            kind = "positive" if name == "limit" else "whole"
            return Response(
                {name: [f"{name} must be a {kind} number."]}, status=status.HTTP_400_BAD_REQUEST
            )
    pages = DocumentPages()
    page = pages.paginate_queryset(items, request, view=view)
    if page is None:
        return Response(serializer(items, many=True).data)
    return pages.get_paginated_response(serializer(page, many=True).data)


class CollectionListApi(APIView):
    @extend_schema(responses=CollectionSerializer(many=True))
    def get(self, request: Request) -> Response:
        """The collections of the user's workspaces and the archives shared with them."""
        collections = selectors.collection_list(
            among=policy.readable_collections(user=request.user)
        )
        return Response(CollectionSerializer(collections, many=True).data)

    @extend_schema(request=CollectionCreateSerializer, responses={201: CollectionSerializer})
    def post(self, request: Request) -> Response:
        """Create a collection in `workspace` (where the user may write; the user's personal
        workspace when absent)."""
        data = CollectionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        workspace_id = fields.pop("workspace", None)
        workspace = (
            None
            if workspace_id is None
            else workspace_policy.workspace_for(
                user=request.user, workspace_id=workspace_id, need="write"
            )
        )
        collection = services.collection_create(owner=request.user, workspace=workspace, **fields)
        return Response(CollectionSerializer(collection).data, status=status.HTTP_201_CREATED)


class CollectionDetailApi(APIView):
    @extend_schema(responses=CollectionSerializer)
    def get(self, request: Request, collection_id: int) -> Response:
        collection = policy.collection_for(user=request.user, collection_id=collection_id)
        return Response(CollectionSerializer(collection).data)

    @extend_schema(request=CollectionUpdateSerializer, responses=CollectionSerializer)
    def patch(self, request: Request, collection_id: int) -> Response:
        """Rename the collection, change its kind, and/or change what its reports exclude
        (`exclude_quotes`, `exclude_bibliography`, `min_match_words`): the similarities of
        its documents and pairs are recomputed at once from the stored passages."""
        collection = policy.collection_for(
            user=request.user, collection_id=collection_id, need="write"
        )
        data = CollectionUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        if "name" in fields or "kind" in fields:
            services.collection_update(
                collection=collection,
                name=fields.get("name", collection.name),
                kind=fields.get("kind", collection.kind),
            )
        services.collection_exclusions_set(
            collection=collection,
            exclude_quotes=fields.get("exclude_quotes"),
            exclude_bibliography=fields.get("exclude_bibliography"),
            min_match_words=fields.get("min_match_words"),
        )
        return Response(CollectionSerializer(collection).data)

    @extend_schema(responses={202: OpenApiResponse(description="Deletion under way")})
    def delete(self, request: Request, collection_id: int) -> Response:
        """Delete the collection with its documents: gone from every answer at once, removed
        in the background."""
        collection = policy.collection_for(
            user=request.user, collection_id=collection_id, need="write"
        )
        services.collection_delete(collection=collection)
        return Response(status=status.HTTP_202_ACCEPTED)


class CollectionArchivesApi(APIView):
    @extend_schema(responses=ArchivesSerializer)
    def get(self, request: Request, collection_id: int) -> Response:
        """`{"archives": [ids chosen], "all": bool}`: with `all`, none is chosen and every
        archive its workspace can use is checked; without it only `archives` (none left: none)."""
        collection = policy.collection_for(user=request.user, collection_id=collection_id)
        return Response(_archives_body(collection))

    @extend_schema(request=ArchivesSerializer, responses=ArchivesSerializer)
    def put(self, request: Request, collection_id: int) -> Response:
        """Choose the archives (an empty list: all of them)."""
        collection = policy.collection_for(
            user=request.user, collection_id=collection_id, need="write"
        )
        data = ArchivesSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.collection_archives_set(
            collection=collection, archive_ids=data.validated_data["archives"]
        )
        return Response(_archives_body(collection))


def _archives_body(collection: Collection) -> dict[str, object]:
    chosen = selectors.archives_chosen(collection=collection).values_list("id", flat=True)
    return {"archives": list(chosen), "all": collection.all_archives}


class CollectionPairsApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "min", float, description="keep pairs where at least this % of one side is shared"
            ),
            *_PAGE_PARAMETERS,
        ],
        responses={200: ListOrPage(PairSerializer)},
    )
    def get(self, request: Request, collection_id: int) -> Response:
        """Every pair of documents sharing passages that involves the collection, once, most
        copied first (the collection page's "Copied pairs")."""
        collection = policy.collection_for(user=request.user, collection_id=collection_id)
        try:
            minimum = float(request.query_params.get("min", 0))
        except ValueError:
            return Response(
                {"detail": "min must be a percentage between 0 and 100."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        if not 0 <= minimum <= 100:
            return Response(
                {"detail": "min must be a percentage between 0 and 100."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        pairs = selectors.collection_pairs(
            collection=collection,
            visible=policy.readable_collections(user=request.user),
            minimum=minimum / 100,
        )
        verdicts = verdict_reads.pair_verdicts(collection=collection)
        rows = [
            {**asdict(pair), "verdict": verdicts.get(frozenset((pair.document, pair.other)))}
            for pair in pairs
        ]
        return _listed(request, self, rows, PairSerializer)


MAX_PROGRESS_IDS = 500


class CollectionProgressApi(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "ids", str, description=f"comma-separated document ids (at most {MAX_PROGRESS_IDS})"
            )
        ],
        responses=CollectionProgressSerializer,
    )
    def get(self, request: Request, collection_id: int) -> Response:
        """How many documents of the collection are in each status, and the status,
        progress and similarity of the documents asked for: what a page of the collection
        polls, in one request instead of one per document."""
        collection = policy.collection_for(user=request.user, collection_id=collection_id)
        raw = request.query_params.get("ids", "")
        try:
            ids = [int(part) for part in raw.split(",") if part.strip()]
        except ValueError:
            ids = None
        if ids is None or len(ids) > MAX_PROGRESS_IDS:
            return Response(
                {"detail": f"ids must be up to {MAX_PROGRESS_IDS} comma-separated document ids."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        # The rows first, the counts after: two statements see two moments, and a document
        # finishing in between must not give a page whose rows all say "done" (so it shows
        # "Results are ready") a summary line still counting one "processing" until its next
        # poll. Read in this order, the counts are never older than the rows.
        rows = list(_progress_rows(collection, ids))
        counts = selectors.document_status_counts(collection=collection)
        return Response(
            {"counts": counts, "documents": DocumentProgressSerializer(rows, many=True).data}
        )


# What a row of the collection page shows; not the large columns (texts, JSON lists). The
# collection too: rows read through `collection.documents` are tied to it by that column, a
# query a row when it is deferred.
_PROGRESS_FIELDS = ("id", "collection_id", "status", "progress", "error", "similarity")


def _progress_rows(collection: Collection, ids: list[int]) -> QuerySet[Document]:
    """The collection's documents among `ids` (others' are left out), by id, in one query."""
    documents = selectors.document_list(collection=collection).filter(id__in=ids)
    return documents.only(*_PROGRESS_FIELDS).order_by("id")


# Page size and offset: ASCII digits only (str.isdigit accepts '²', which int() refuses).
class CollectionDocumentsApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(
        parameters=_PAGE_PARAMETERS,
        responses={200: ListOrPage(DocumentSummarySerializer)},
    )
    def get(self, request: Request, collection_id: int) -> Response:
        """The collection's documents, newest first: all of them, or with `limit` (and
        `offset`) one page `{"count", "next", "previous", "results"}`."""
        collection = policy.collection_for(user=request.user, collection_id=collection_id)
        documents = selectors.document_list(collection=collection)
        return _listed(request, self, documents, DocumentSummarySerializer)

    @extend_schema(
        request=DocumentUploadSerializer,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                description="Any unique string (a UUID) of up to 255 characters: a retry with "
                "the same key gets the first answer (same status and body, header "
                "`Idempotent-Replayed: true`) instead of uploading the file again.",
            )
        ],
        responses={
            201: PolymorphicProxySerializer(
                component_name="UploadCreated",
                serializers=[DocumentCreatedSerializer, BatchCreatedSerializer],
                resource_type_field_name=None,
            )
        },
    )
    def post(self, request: Request, collection_id: int) -> Response:
        """Upload one document (201 `{"id", "status"}`), or a ZIP batch (201
        `{"documents", "skipped"}`: a document for each file stored)."""
        collection = policy.collection_for(
            user=request.user, collection_id=collection_id, need="write"
        )
        data = DocumentUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        answer = services.upload_once(
            user=request.user,
            key=request.headers.get("Idempotency-Key", "").strip(),
            request=f"POST {request.path}",
            answer=lambda: self._upload(collection, data.validated_data),
        )
        response = Response(answer.body, status=answer.status)
        if answer.replayed:
            response["Idempotent-Replayed"] = "true"
        return response

    def _upload(self, collection: Collection, data: dict) -> services.Answer:
        upload, template = data["file"], data["template"]
        submitted_at = data["submitted_at"]
        if services.is_batch(upload.name):
            return self._batch(collection, upload.name, upload.read(), template, submitted_at)
        document = services.document_upload(
            collection=collection,
            filename=upload.name,
            data=upload.read(),
            folder=data["folder"],
            template=template,
            submitted_at=submitted_at,
        )
        body = DocumentCreatedSerializer(document).data
        return services.Answer(status.HTTP_201_CREATED, body, (document.id,))

    def _batch(
        self,
        collection: Collection,
        name: str,
        data: bytes,
        template: bool,
        submitted_at: datetime.datetime | None,
    ) -> services.Answer:
        batch = services.document_upload_batch(
            collection=collection,
            filename=name,
            data=data,
            template=template,
            submitted_at=submitted_at,
        )
        body = {
            "documents": DocumentCreatedSerializer(batch.documents, many=True).data,
            "skipped": [{"path": path, "reason": reason} for path, reason in batch.skipped],
        }
        ids = tuple(document.id for document in batch.documents)
        return services.Answer(status.HTTP_201_CREATED, body, ids)


class CollectionImportsApi(APIView):
    parser_classes = [MultiPartParser]

    @extend_schema(responses=ArchiveImportSerializer(many=True))
    def get(self, request: Request, collection_id: int) -> Response:
        """The archive's latest bulk imports, newest first, with their progress."""
        collection = policy.collection_for(user=request.user, collection_id=collection_id)
        jobs = selectors.import_list(collection=collection)[: selectors.IMPORTS_LISTED]
        return Response(ArchiveImportSerializer(jobs, many=True).data)

    @extend_schema(request=ImportUploadSerializer, responses={202: ArchiveImportSerializer})
    def post(self, request: Request, collection_id: int) -> Response:
        """Import ZIP batches or documents into the archive in bulk: stored and indexed a chunk
        at a time by the worker, searchable as they are stored, not checked against each
        other. Poll the list (or the returned import's `status`) for progress."""
        collection = policy.collection_for(
            user=request.user, collection_id=collection_id, need="write"
        )
        data = ImportUploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        files = [(upload.name, upload.read()) for upload in data.validated_data["files"]]
        job = imports.import_upload(collection=collection, files=files)
        return Response(ArchiveImportSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class DocumentStatusApi(APIView):
    @extend_schema(responses=DocumentStatusSerializer)
    def get(self, request: Request, document_id: int) -> Response:
        document = policy.document_for(user=request.user, document_id=document_id)
        return Response(DocumentStatusSerializer(document).data)

    @extend_schema(request=DocumentUpdateSerializer, responses=DocumentStatusSerializer)
    def patch(self, request: Request, document_id: int) -> Response:
        """`{"template": true|false}`: mark the document as a template (text every submission
        was given) or not; the collection is checked again either way. `{"submitted_at":
        "2026-11-20T09:00:00Z"}`: when it was handed in; the collection's similarities are
        recomputed (the earlier of two documents is the original)."""
        document = policy.document_for(user=request.user, document_id=document_id, need="write")
        data = DocumentUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if "submitted_at" in data.validated_data:
            services.document_submitted_set(
                document=document, submitted_at=data.validated_data["submitted_at"]
            )
        if "template" in data.validated_data:
            services.document_template_set(
                document=document, template=data.validated_data["template"]
            )
        document.refresh_from_db()
        return Response(DocumentStatusSerializer(document).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, document_id: int) -> Response:
        """Delete the document with its postings and results."""
        document = policy.document_for(user=request.user, document_id=document_id, need="write")
        services.document_delete(document=document)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DocumentRecheckApi(APIView):
    @extend_schema(request=None, responses={202: DocumentStatusSerializer})
    def post(self, request: Request, document_id: int) -> Response:
        """Check the document again (e.g. after the archive selection changed)."""
        document = policy.document_for(user=request.user, document_id=document_id, need="write")
        services.document_recheck(document=document)
        document.refresh_from_db()
        return Response(DocumentStatusSerializer(document).data, status=status.HTTP_202_ACCEPTED)


_NO_REPORT_YET: dict[str, str] = {
    Document.Status.QUEUED: "The document is queued; no report yet.",
    Document.Status.PROCESSING: "The document is being processed; no report yet.",
    Document.Status.FAILED: "The document could not be processed (see its error): no report.",
}


REPORT_PARAMETERS = [
    OpenApiParameter(
        "exclude_quotes", bool, description="1/0: leave quoted text out (default: the collection's)"
    ),
    OpenApiParameter(
        "exclude_bibliography",
        bool,
        description="1/0: leave reference lists out (default: the collection's)",
    ),
    OpenApiParameter(
        "min_match_words",
        int,
        description="leave out matches of fewer words (default: the collection's)",
    ),
    OpenApiParameter(
        "exclude_source", str, description="comma-separated document ids left out of this report"
    ),
]


def _no_report(document: Document) -> Response | None:
    """The 409 answer for a document without a report, None when it has one."""
    if document.template:  # never checked: "nothing copied" would be a claim never made
        return Response(
            {"detail": "The document is a template: it is not checked, so it has no report."},
            status=status.HTTP_409_CONFLICT,
        )
    if document.status != Document.Status.DONE:
        return Response(
            {"detail": _NO_REPORT_YET[document.status], "status": document.status},
            status=status.HTTP_409_CONFLICT,
        )
    return None


def _report_read(request: Request, document_id: int) -> selectors.Report | Response:
    """The report of a document the user may read, with the request's exclusion toggles; or
    the 409 (no report) or 400 (a toggle's value is invalid) answer."""
    document = policy.document_for(user=request.user, document_id=document_id)
    refusal = _no_report(document)
    if refusal is not None:
        return refusal
    try:
        rules = rules_from_query(document.collection, request.query_params)
    except ValueError as error:
        return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
    return selectors.report_get(document=document, rules=rules)


class DocumentReportApi(APIView):
    @extend_schema(
        parameters=REPORT_PARAMETERS,
        responses={
            200: ReportSerializer,
            400: OpenApiResponse(description="A toggle's value is invalid"),
            409: OpenApiResponse(
                NoReportSerializer, description="Not processed yet, failed, or a template"
            ),
        },
    )
    def get(self, request: Request, document_id: int) -> Response:
        """The document's sources with their passages. The toggles recompute the similarity
        from the stored passages, with these exclusions instead of the collection's."""
        report = _report_read(request, document_id)
        if isinstance(report, Response):
            return report
        return Response(ReportSerializer(report).data)


class _EvidenceApi(APIView):
    """The evidence report (documents.evidence) of a processed document, with the report's
    exclusion toggles; rendered by `render`."""

    media_type = ""
    suffix = ""

    def get(self, request: Request, document_id: int) -> HttpResponse:
        report = _report_read(request, document_id)
        if isinstance(report, Response):
            return report
        body = self.render(report, selectors.report_source_texts(report=report))
        response = HttpResponse(body, content_type=self.media_type)
        name = f"evidence-{document_id}.{self.suffix}"
        response["Content-Disposition"] = f'inline; filename="{name}"'
        return response

    def render(self, report: selectors.Report, texts: dict[int, str]) -> bytes | str:
        raise NotImplementedError


_EVIDENCE_RESPONSES = {
    400: OpenApiResponse(description="A toggle's value is invalid"),
    409: OpenApiResponse(description="Not processed yet, or a template"),
}


class DocumentEvidencePdfApi(_EvidenceApi):
    media_type = "application/pdf"
    suffix = "pdf"

    @extend_schema(
        parameters=REPORT_PARAMETERS,
        responses={(200, "application/pdf"): OpenApiTypes.BINARY, **_EVIDENCE_RESPONSES},
    )
    def get(self, request: Request, document_id: int) -> HttpResponse:
        """The evidence report as a PDF: the document's name, submission time and SHA-256,
        the settings used, the similarities, the text with every source's passages in its
        colour (excluded ones grey) and the matching source excerpts."""
        return super().get(request, document_id)

    def render(self, report: selectors.Report, texts: dict[int, str]) -> bytes:
        return evidence.evidence_pdf(report, texts)


class DocumentEvidenceHtmlApi(_EvidenceApi):
    media_type = "text/html; charset=utf-8"
    suffix = "html"

    @extend_schema(
        parameters=REPORT_PARAMETERS,
        responses={(200, "text/html"): OpenApiTypes.STR, **_EVIDENCE_RESPONSES},
    )
    def get(self, request: Request, document_id: int) -> HttpResponse:
        """The evidence report as one self-contained HTML file (inline CSS, nothing linked)."""
        return super().get(request, document_id)

    def render(self, report: selectors.Report, texts: dict[int, str]) -> str:
        return evidence.evidence_html(report, texts)


class DocumentTextApi(APIView):
    @extend_schema(responses={(200, "text/plain"): str})
    def get(self, request: Request, document_id: int) -> HttpResponse:
        document = policy.document_for(user=request.user, document_id=document_id)
        return HttpResponse(document.text, content_type="text/plain; charset=utf-8")
