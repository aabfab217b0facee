"""API input parsing and output shapes (also the OpenAPI schema)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from documents.exclusions import EXCLUSION_REASONS
from documents.models import Collection, Document, Verdict
from documents.templatetags.report_format import percent


class CollectionCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=Collection.Kind.choices, default="assignment")
    workspace = serializers.IntegerField(
        required=False, help_text="the workspace's id (the user's personal workspace when absent)"
    )


_EXCLUDE_QUOTES = 'leave quoted text (“…”, "…", 「…」, 『…』, block quotes) out of similarities'
_EXCLUDE_BIBLIOGRAPHY = "leave reference lists (References, 参考文献, …) out of similarities"
_MIN_MATCH_WORDS = (
    "leave out matches of fewer words (a Chinese character counts as a word; 0: keep all)"
)


class CollectionUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    kind = serializers.ChoiceField(choices=Collection.Kind.choices, required=False)
    exclude_quotes = serializers.BooleanField(required=False, help_text=_EXCLUDE_QUOTES)
    exclude_bibliography = serializers.BooleanField(required=False, help_text=_EXCLUDE_BIBLIOGRAPHY)
    min_match_words = serializers.IntegerField(
        required=False, min_value=0, max_value=1000, help_text=_MIN_MATCH_WORDS
    )


class CollectionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    exclude_quotes = serializers.BooleanField(help_text=_EXCLUDE_QUOTES)
    exclude_bibliography = serializers.BooleanField(help_text=_EXCLUDE_BIBLIOGRAPHY)
    min_match_words = serializers.IntegerField(help_text=_MIN_MATCH_WORDS)
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
    submitted_at = serializers.DateTimeField(
        required=False,
        default=None,
        help_text="when the student handed it in (ISO 8601 with a time zone); default: now, "
        "or a ZIP member's own modification time. The earlier of two documents is the original.",
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


class DocumentUpdateSerializer(serializers.Serializer):
    template = serializers.BooleanField(required=False)
    submitted_at = serializers.DateTimeField(
        required=False, help_text="when the student handed it in (ISO 8601 with a time zone)"
    )


class DocumentStatusSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    template = serializers.BooleanField()
    submitted_at = serializers.DateTimeField(help_text="when the student handed it in")
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
    submitted_at = serializers.DateTimeField()


class DocumentCreatedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()


class PassageSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    source_start = serializers.IntegerField()
    source_end = serializers.IntegerField()
    score = serializers.FloatField()
    kind = serializers.ChoiceField(
        choices=["verbatim", "edited", "summary"],
        help_text="what kind of copy: verbatim (copied words, light edits), edited "
        "(paraphrased, shuffled or translated words), summary (a short passage condensing a "
        "longer source span)",
    )
    excluded = serializers.ChoiceField(
        choices=EXCLUSION_REASONS,
        allow_null=True,
        help_text="why it is left out of the similarity (quoted text, reference list, fewer "
        "words than min_match_words, source excluded from this report); null: it counts",
    )


class SourceSerializer(serializers.Serializer):
    document = serializers.IntegerField()
    title = serializers.CharField()
    collection = serializers.CharField()
    similarity = serializers.FloatField(
        help_text="share of the document's text found in the source, exclusions applied"
    )
    passages = PassageSerializer(many=True)
    submitted_at = serializers.DateTimeField(allow_null=True)
    archive = serializers.BooleanField(help_text="a document of an archive (always an original)")
    direction = serializers.ChoiceField(
        choices=["from_source", "same_time", "to_source"],
        help_text="from_source: the document copied from it; same_time: the submission times "
        "cannot tell (within a minute); to_source: it copied from the document (copied_by)",
    )
    excluded = serializers.BooleanField(help_text="excluded from this report (exclude_source)")


class LeftOutSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    reason = serializers.ChoiceField(choices=["quote", "bibliography"])


class ReportSettingsSerializer(serializers.Serializer):
    exclude_quotes = serializers.BooleanField(source="quotes")
    exclude_bibliography = serializers.BooleanField(source="bibliography")
    min_match_words = serializers.IntegerField(source="min_words")
    exclude_source = serializers.ListField(
        child=serializers.IntegerField(), source="excluded_sources"
    )


class ReportSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="document.id")
    similarity = serializers.FloatField(
        help_text="share of the text taken from earlier documents and archives, passages "
        "not excluded"
    )
    sources = SourceSerializer(many=True)
    copied_by = SourceSerializer(
        many=True,
        help_text="later documents of the collection holding its passages (not counted)",
    )
    submitted_at = serializers.DateTimeField(source="document.submitted_at")
    model_version = serializers.CharField(source="document.model_version")
    settings = ReportSettingsSerializer(source="rules", help_text="the exclusions applied")
    left_out = LeftOutSerializer(
        many=True,
        help_text="quoted and reference-list ranges of the text the settings leave out: their "
        "characters never count, even inside a passage that does",
    )


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
    direction = serializers.ChoiceField(
        choices=["a_from_b", "b_from_a", "same_time"],
        help_text="by submission time: a_from_b: document copied from other (other came first "
        "or is an archive's); b_from_a: other copied from document; same_time: within a minute",
    )
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
