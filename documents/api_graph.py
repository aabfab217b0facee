"""`GET /api/collections/<id>/graph/`: the collusion graph of a collection, as the collusion
page draws it."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from documents import policy
from documents.selectors_graph import GraphEdge, GraphNode, collection_graph


class GraphNodeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField(help_text="the document's folder and name")
    similarity = serializers.FloatField(allow_null=True, help_text="the document's similarity")
    submitted_at = serializers.DateTimeField(
        help_text="when it was submitted (the upload time unless given): who was first"
    )
    url = serializers.SerializerMethodField(help_text="the document's report page")

    def get_url(self, node: GraphNode) -> str:
        return reverse("document_report", args=[node.id])


class GraphEdgeSerializer(serializers.Serializer):
    id = serializers.CharField()
    source = serializers.IntegerField(
        help_text="a node; with `directed`, the one that copied (submitted later)"
    )
    target = serializers.IntegerField(
        help_text="a node; with `directed`, the original (submitted earlier)"
    )
    directed = serializers.BooleanField(
        help_text="false when the submission times cannot tell who was first"
    )
    source_share = serializers.FloatField(
        allow_null=True, help_text="share of the source's text found in the target"
    )
    target_share = serializers.FloatField(
        allow_null=True, help_text="share of the target's text found in the source"
    )
    share = serializers.FloatField(help_text="the larger share (edge width, threshold)")
    passages = serializers.IntegerField()
    url = serializers.SerializerMethodField(help_text="the pair side by side")

    def get_url(self, edge: GraphEdge) -> str:
        report = reverse("document_report", args=[edge.report_document])
        return f"{report}?source={edge.report_source}"


class GraphSerializer(serializers.Serializer):
    collection = serializers.IntegerField(source="collection_id")
    documents = serializers.IntegerField(
        help_text="the collection's checked documents, with or without edges"
    )
    nodes = GraphNodeSerializer(many=True, help_text="the documents with at least one edge")
    edges = GraphEdgeSerializer(many=True, help_text="pairs of them, strongest first")


class CollectionGraphApi(APIView):
    @extend_schema(responses=GraphSerializer)
    def get(self, request: Request, collection_id: int) -> Response:
        """The collection's documents linked by the passages they share (the copied pairs
        between two of its documents): the collusion view of an assignment."""
        collection = policy.collection_for(user=request.user, collection_id=collection_id)
        graph = collection_graph(collection=collection)
        body = {
            "collection_id": collection.id,
            "documents": graph.documents,
            "nodes": graph.nodes,
            "edges": graph.edges,
        }
        return Response(GraphSerializer(body).data)
