"""JSON API for work in a team: sharing an archive with another workspace, verdicts on a
document's pairs and passages."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from documents import policy, selectors, services
from documents import verdicts as verdict_reads
from documents.serializers import ShareSerializer, VerdictCreateSerializer, VerdictSerializer


class CollectionSharesApi(APIView):
    @extend_schema(responses=ShareSerializer(many=True))
    def get(self, request: Request, collection_id: int) -> Response:
        """The workspaces this archive is shared with (read-only for them)."""
        archive = policy.collection_for(user=request.user, collection_id=collection_id)
        return Response(ShareSerializer(selectors.share_list(archive=archive), many=True).data)

    @extend_schema(request=ShareSerializer, responses={201: ShareSerializer})
    def post(self, request: Request, collection_id: int) -> Response:
        """Share the archive read-only with another workspace (admins of its workspace)."""
        archive = policy.collection_for(
            user=request.user, collection_id=collection_id, need="admin"
        )
        data = ShareSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        share = services.archive_share(
            archive=archive, workspace_id=data.validated_data["workspace_id"]
        )
        return Response(ShareSerializer(share).data, status=status.HTTP_201_CREATED)


class CollectionShareApi(APIView):
    @extend_schema(responses={204: None})
    def delete(self, request: Request, collection_id: int, workspace_id: int) -> Response:
        """Stop sharing the archive with that workspace (admins of its workspace)."""
        archive = policy.collection_for(
            user=request.user, collection_id=collection_id, need="admin"
        )
        services.archive_unshare(archive=archive, workspace_id=workspace_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DocumentVerdictsApi(APIView):
    @extend_schema(responses=VerdictSerializer(many=True))
    def get(self, request: Request, document_id: int) -> Response:
        """Every verdict on the document's pairs and passages, newest first; the latest of
        each pair or passage is `current` (earlier ones are its history)."""
        document = policy.document_for(user=request.user, document_id=document_id)
        views = verdict_reads.verdict_history(document=document)
        return Response(VerdictSerializer(views, many=True).data)

    @extend_schema(request=VerdictCreateSerializer, responses={201: VerdictSerializer})
    def post(self, request: Request, document_id: int) -> Response:
        """Judge the pair (the document and `source`) or, with `start` and `end`, one passage
        of the document shared with `source`: `confirmed` or `not_copying`, with a note."""
        document = policy.document_for(user=request.user, document_id=document_id, need="review")
        data = VerdictCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        verdict = services.verdict_record(
            document=document,
            source_id=fields["source"],
            value=fields["verdict"],
            note=fields["note"],
            start=fields["start"],
            end=fields["end"],
            author=request.user,
        )
        body = VerdictSerializer(verdict_reads.verdict_view(verdict=verdict)).data
        return Response(body, status=status.HTTP_201_CREATED)
