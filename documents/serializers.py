"""API input parsing and output shapes (also the OpenAPI schema)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from documents.models import Collection, Document, Verdict
from documents.templatetags.report_format import percent


class CollectionCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=Collection.Kind.choices, default="assignment")
    workspace = serializers.IntegerField(
        required=False, help_text="the workspace's id (the user's personal workspace when absent)"
    )


class CollectionUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    kind = serializers.ChoiceField(choices=Collection.Kind.choices, required=False)


class CollectionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    workspace = serializers.IntegerField(source="workspace_id")


class ArchivesSerializer(serializers.Serializer):
    archives = serializers.ListField(child=serializers.IntegerField(), allow_empty=True)
    all = serializers.BooleanField(read_only=True)


class ShareSerializer(serializers.Serializer):
    workspace = serializers.IntegerField(source="workspace_id", help_text="the workspace's id")
    workspace_name = serializers.CharField(source="workspace.name", read_only=True)


@extend_schema_field(OpenApiTypes.BINARY)
class BinaryFileField(serializers.FileField):
    """An uploaded file: `format: binary` in the schema (the bytes of a multipart part)."""


class DocumentUploadSerializer(serializers.Serializer):
    file = BinaryFileField(
        allow_empty_file=True,
        help_text="one document, or a ZIP batch of documents (its folders kept); sent once",
    )
    folder = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    template = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Text every submission was given (prompt, starter text): never counted as "
        "copied in the collection's other documents.",
    )

    def validate_file(self, upload: object) -> object:
        # A form with `file` twice would otherwise keep the last one and drop the others.
        getlist = getattr(self.initial_data, "getlist", None)
        sent = len(getlist("file")) if getlist is not None else 1
        if sent > 1:
            raise serializers.ValidationError(
                f"{sent} files were sent as `file`: send one per request, or a ZIP of them."
            )
        return upload


class DocumentTemplateSerializer(serializers.Serializer):
    template = serializers.BooleanField()


class DocumentStatusSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    template = serializers.BooleanField()
    status = serializers.CharField()
    status_label = serializers.CharField(
        source="get_status_display", help_text="the status as the pages show it"
    )
    progress = serializers.IntegerField()
    error = serializers.CharField()
    warnings = serializers.ListField(child=serializers.CharField())


class DocumentSummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    filename = serializers.CharField()
    folder = serializers.CharField()
    status = serializers.CharField()
    progress = serializers.IntegerField()
    similarity = serializers.FloatField(allow_null=True)
    template = serializers.BooleanField()


class DocumentCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()


class PassageSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    source_start = serializers.IntegerField()
    source_end = serializers.IntegerField()
    score = serializers.FloatField()


class SourceSerializer(serializers.Serializer):
    document = serializers.IntegerField()
    title = serializers.CharField()
    collection = serializers.CharField()
    similarity = serializers.FloatField()
    passages = PassageSerializer(many=True)


class ReportSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="document.id")
    similarity = serializers.FloatField()
    sources = SourceSerializer(many=True)


class NoReportSerializer(serializers.Serializer):
    detail = serializers.CharField()
    status = serializers.CharField(
        required=False, help_text="the document's status (absent for a template)"
    )


class VerdictSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    document = serializers.IntegerField()
    source = serializers.IntegerField()
    start = serializers.IntegerField(allow_null=True, help_text="null: the pair as a whole")
    end = serializers.IntegerField(allow_null=True)
    verdict = serializers.ChoiceField(choices=Verdict.Value.choices, source="value")
    label = serializers.CharField()
    note = serializers.CharField()
    author = serializers.CharField(help_text="username ('' once the account is gone)")
    created_at = serializers.DateTimeField()
    current = serializers.BooleanField(help_text="the latest verdict of its pair or passage")


class PairSerializer(serializers.Serializer):
    document = serializers.IntegerField(help_text="a document of the collection")
    title = serializers.CharField()
    other = serializers.IntegerField(help_text="another submission, or an archive document")
    other_title = serializers.CharField()
    other_collection = serializers.CharField()
    share = serializers.FloatField(
        allow_null=True,
        help_text="share of the document's text found in the other (null for an archive "
        "document copied by another collection's document)",
    )
    other_share = serializers.FloatField(
        allow_null=True, help_text="share of the other's text (null for archive documents)"
    )
    passages = serializers.IntegerField()
    verdict = VerdictSerializer(allow_null=True, help_text="the verdict in force on the pair")


class DocumentProgressSerializer(serializers.Serializer):
    """What a collection page shows of a row, so a row finishing under its eyes reads as
    it would after a reload."""

    id = serializers.IntegerField()
    status = serializers.CharField()
    status_label = serializers.CharField(
        source="get_status_display", help_text="the status as the pages show it"
    )
    progress = serializers.IntegerField()
    error = serializers.CharField(help_text="why it failed ('' unless failed)")
    similarity = serializers.FloatField(allow_null=True)
    similarity_label = serializers.SerializerMethodField(
        help_text="the similarity as the pages show it ('42.4%'; '–' until processed)"
    )

    def get_similarity_label(self, document: Document) -> str:
        return percent(document.similarity)


class CollectionProgressSerializer(serializers.Serializer):
    counts = serializers.DictField(
        child=serializers.IntegerField(), help_text="documents of the collection per status"
    )
    documents = DocumentProgressSerializer(many=True, help_text="the documents asked for")


class ImportProblemSerializer(serializers.Serializer):
    path = serializers.CharField()
    reason = serializers.CharField()


class BatchCreatedSerializer(serializers.Serializer):
    """The answer to a ZIP batch: a document for each file stored, the files left out."""

    documents = DocumentCreatedSerializer(many=True)
    skipped = ImportProblemSerializer(many=True, help_text="the files of the ZIP not stored")


class ArchiveImportSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    names = serializers.CharField()
    status = serializers.CharField()
    status_label = serializers.CharField(source="get_status_display")
    size = serializers.IntegerField()
    files = serializers.IntegerField(help_text="files read so far, skipped ones included")
    imported = serializers.IntegerField()
    failed = serializers.IntegerField(help_text="stored as failed documents, with the reason")
    duplicates = serializers.IntegerField(help_text="content the archive already held")
    skipped = serializers.IntegerField(help_text="not documents, empty or too large")
    summary = serializers.CharField()
    problems = ImportProblemSerializer(
        many=True, source="problem_list", help_text="the first failed and skipped files"
    )
    error = serializers.CharField(help_text="why the import stopped, when it failed")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class ImportUploadSerializer(serializers.Serializer):
    files = serializers.ListField(
        child=BinaryFileField(allow_empty_file=True),
        allow_empty=False,
        help_text="ZIP batches or documents (the field repeated)",
    )


class VerdictCreateSerializer(serializers.Serializer):
    source = serializers.IntegerField(help_text="the other document of the pair")
    verdict = serializers.ChoiceField(choices=Verdict.Value.choices)
    note = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)
    start = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=0,
        help_text="a passage: its first character in the document's text (with `end`); "
        "absent for the pair as a whole",
    )  # fmt: skip
    end = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
