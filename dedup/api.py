"""JSON API (token or session auth). Views parse input and call one service or selector."""

from __future__ import annotations

from dataclasses import asdict

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from dedup import selectors, services
from dedup.serializers import (
    RunCreatedSerializer,
    RunDetailSerializer,
    RunSerializer,
    RunStartSerializer,
)
from documents import policy


class CollectionDedupApi(APIView):
    @extend_schema(responses=RunSerializer(many=True))
    def get(self, request: Request, collection_id: int) -> Response:
        collection = policy.collection_for(user=request.user, collection_id=collection_id)
        return Response(RunSerializer(selectors.run_list(collection=collection), many=True).data)

    @extend_schema(request=RunStartSerializer, responses={201: RunCreatedSerializer})
    def post(self, request: Request, collection_id: int) -> Response:
        collection = policy.collection_for(
            user=request.user, collection_id=collection_id, need="write"
        )
        data = RunStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = services.dedup_run_start(collection=collection, method=data.validated_data["method"])
        return Response(RunCreatedSerializer(run).data, status=status.HTTP_201_CREATED)


class DedupRunApi(APIView):
    @extend_schema(responses=RunDetailSerializer)
    def get(self, request: Request, run_id: int) -> Response:
        run = selectors.run_get(run_id=run_id)
        if run is None:
            raise Http404("No such run.")
        policy.collection_for(user=request.user, collection_id=run.collection_id)
        body = RunSerializer(run).data
        body["clusters"] = [
            {"centre": c.centre, "members": [asdict(m) for m in c.members]}
            for c in selectors.cluster_list(run=run)
        ]
        return Response(body)
