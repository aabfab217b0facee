"""API input parsing and output shapes (also the OpenAPI schema)."""

from rest_framework import serializers

from dedup.services import DEFAULT_METHOD


class RunStartSerializer(serializers.Serializer):
    method = serializers.CharField(max_length=40, required=False, default=DEFAULT_METHOD)


class RunCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()


class MemberSerializer(serializers.Serializer):
    document = serializers.IntegerField()
    title = serializers.CharField()
    relation = serializers.CharField()
    score = serializers.FloatField()


class ClusterSerializer(serializers.Serializer):
    centre = serializers.IntegerField()
    members = MemberSerializer(many=True)


class RunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    collection = serializers.IntegerField(source="collection_id")
    method = serializers.CharField()
    signature_version = serializers.CharField()
    status = serializers.CharField()
    progress = serializers.IntegerField()
    error = serializers.CharField()
    created = serializers.DateTimeField()
    finished = serializers.DateTimeField(allow_null=True)


class RunDetailSerializer(RunSerializer):
    clusters = ClusterSerializer(many=True)
