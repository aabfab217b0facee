"""Collections own documents; documents own their sentence spans and matches.

The inverted index (posting and document-frequency tables) is not modelled here: it is a
hash-partitioned table created by a RunSQL migration and accessed by `documents.index.store`.
"""

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models.functions import Now
from django.utils import timezone


class Collection(models.Model):
    """An assignment (submissions checked against each other) or an archive (reference texts)."""

    class Kind(models.TextChoices):
        ASSIGNMENT = "assignment", "Assignment"
        ARCHIVE = "archive", "Archive"

    # Who created it (None once their account is gone: a shared workspace keeps its
    # collections); what a user may do with it follows from their role in its workspace.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="collections",
    )
    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="collections"
    )
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.ASSIGNMENT)
    # Archives this collection is checked against. None chosen (`all_archives`): every archive
    # of its workspace and every archive shared with it. Once archives are chosen, losing them
    # (deleted, or turned into assignments) leaves none to check against, never silently all.
    archives = models.ManyToManyField("self", symmetrical=False, blank=True, related_name="+")
    all_archives = models.BooleanField(default=True, db_default=True)
    # What reports leave out of the similarity (documents.exclusions): quoted text, reference
    # lists, and matches shorter than `min_match_words` words (a CJK character is a word).
    exclude_quotes = models.BooleanField(default=True, db_default=True)
    exclude_bibliography = models.BooleanField(default=True, db_default=True)
    min_match_words = models.PositiveIntegerField(default=8, db_default=8)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set when its owner deletes it: hidden at once, removed with its documents by a task.
    deleting = models.BooleanField(default=False)
    # Until when its deletion is known to be alive (`core.lease`): the periodic sweep
    # queues unfinished work again only once its lease ran out.
    lease_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class ArchiveShare(models.Model):
    """An archive shared read-only with another workspace (an institution's repository):
    that workspace's collections are checked against it and its members read it."""

    archive = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="shares")
    workspace = models.ForeignKey(
        "workspaces.Workspace", on_delete=models.CASCADE, related_name="shared_archives"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["archive", "workspace"], name="archiveshare_unique")
        ]


def document_path(folder: str, filename: str) -> str:
    """Folder and name: what tells two students' "essay.docx" apart."""
    return f"{folder}/{filename}" if folder else filename


class Document(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        PROCESSING = "processing", "Processing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="documents")
    original = models.FileField(upload_to="originals/%Y/%m/")
    filename = models.CharField(max_length=255)
    # Folder path the file came from (a folder upload or a ZIP batch), "" for a single file.
    folder = models.CharField(max_length=500, blank=True, default="")
    size = models.PositiveIntegerField(default=0)
    checksum = models.CharField(max_length=64, help_text="sha256 of the original bytes")
    text = models.TextField(blank=True, default="")
    language = models.CharField(max_length=10, blank=True, default="")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    error = models.TextField(blank=True, default="")
    progress = models.PositiveSmallIntegerField(default=0)
    model_version = models.CharField(max_length=255, blank=True, default="")
    # True while the document's postings are in the index (document_count counts these).
    indexed = models.BooleanField(default=False)
    # The transaction that last indexed the document (pg_current_xact_id()): a check knows from
    # its snapshot which documents it could see, so it never drops a pair that a document
    # indexed during the check has stored since (services._matches_replace). NULL: indexed
    # by a bulk loader, long before any check that runs now.
    indexed_xid = models.BigIntegerField(null=True, blank=True, editable=False)
    similarity = models.FloatField(null=True, blank=True)
    # Text every submission was given (the assignment's prompt, starter text, a form to fill
    # in): indexed but never checked, and its features are left out of the checks of the
    # collection's other documents, so what everyone was given is never reported as copied.
    template = models.BooleanField(default=False, db_default=False)
    # Non-fatal extraction problems shown to the user ("2 of 5 pages have no text layer").
    # Database defaults too, so raw COPY writers (benchmarks/) need not know these columns.
    warnings = models.JSONField(default=list, db_default=[], blank=True)
    # Web pages: the site whose template lines are learned together (documents.boilerplate);
    # "" for other files. The removed template lines are kept out of `text` but listed here.
    site = models.CharField(max_length=255, blank=True, default="", db_default="")
    boilerplate_lines = models.JSONField(default=list, db_default=[], blank=True)
    # A processed page's template keys (extraction.boilerplate.text_keys, sorted):
    # of its lines as indexed and of its removed lines. NULL for a page that does not count
    # towards its site's template (no site, or not processed yet). Triggers keep `SiteKey`
    # counting them (migration 0022).
    site_keys = ArrayField(models.BigIntegerField(), null=True, blank=True, editable=False)
    site_removed_keys = ArrayField(models.BigIntegerField(), null=True, blank=True, editable=False)
    # Sentence i of the analysis is text[sentence_starts[i]:sentence_ends[i]] (analyze() numbers
    # sentences 0..n-1). Two arrays on the row rather than a row per sentence: ingest writes
    # ~45 sentences per document, and a row each (two btrees, a foreign-key check) would be a
    # large share of the database time of ingest (docs/decisions/0002).
    sentence_starts = ArrayField(
        models.PositiveIntegerField(), default=list, db_default=[], blank=True
    )
    sentence_ends = ArrayField(
        models.PositiveIntegerField(), default=list, db_default=[], blank=True
    )
    # Quoted and reference-list character ranges of `text` (extraction.citations.Citations
    # .as_json: {"quote": [[start, end], ...], "bibliography": [...]}), found when it is
    # processed; NULL: not processed since they were stored (read from the text then).
    citations = models.JSONField(null=True, blank=True)
    # When the student handed it in (the upload time unless given; a ZIP member's own time):
    # of two documents sharing passages, the earlier one is the original.
    submitted_at = models.DateTimeField(default=timezone.now, db_default=Now())
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Until when its processing is known to be alive (`core.lease`): the periodic sweep
    # queues unfinished work again only once its lease ran out.
    lease_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["model_version", "indexed"]),
            models.Index(fields=["collection", "site"], name="document_collection_site"),
            # Re-uploads of the same file are found by their checksum (services._page_read).
            models.Index(fields=["checksum"], name="document_checksum"),
        ]

    def __str__(self) -> str:
        return self.filename

    @property
    def path(self) -> str:
        return document_path(self.folder, self.filename)


class SiteKey(models.Model):
    """On how many processed pages of a collection's site a template key occurs (key 0: the
    site's page count), so that a page learns its site's template from these counts instead of
    re-reading every page of the site (documents.boilerplate.site_template). Written only by
    the triggers on `Document.site_keys` (migration 0022): a row goes when its count reaches 0,
    so deleting a collection's documents leaves no rows behind."""

    collection = models.ForeignKey(
        Collection, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False,
        related_name="+",
    )  # fmt: skip
    site = models.CharField(max_length=255)
    key = models.BigIntegerField()
    pages = models.IntegerField()
    # Of those, the pages holding it in their lines as indexed (not removed as template).
    kept = models.IntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["collection", "site", "key"], name="sitekey_key")
        ]
        # The keys on enough pages to be template: a range of this index, not the site's keys.
        # Key 0 (the page count) is left out, so that it is read by the unique index.
        indexes = [
            models.Index(
                fields=["collection", "site", "pages"],
                condition=~models.Q(key=0),
                name="sitekey_pages",
            )
        ]


class Match(models.Model):
    """What `document` shares with `source`: its passages and the share of `document` covered."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="matches")
    source = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    similarity = models.FloatField()
    model_version = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-similarity", "id"]
        constraints = [
            models.UniqueConstraint(fields=["document", "source"], name="match_unique_pair")
        ]


PASSAGE_KINDS = [
    ("verbatim", "verbatim"),  # copied words, light edits
    ("edited", "edited"),  # paraphrased, shuffled, replaced or translated words
    ("summary", "summarised"),  # a short passage condensing a longer source span
]


class MatchPassage(models.Model):
    """A copied passage: [start, end) in the document's text, [source_start, source_end) in the
    source's text."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="passages")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    source_start = models.PositiveIntegerField()
    source_end = models.PositiveIntegerField()
    score = models.FloatField()
    # What kind of copy the detector found (detection.Passage.kind).
    kind = models.CharField(max_length=10, choices=PASSAGE_KINDS, default="verbatim")

    class Meta:
        ordering = ["start", "source_start"]


class ArchiveImport(models.Model):
    """Files uploaded to be imported into an archive in bulk (`documents.bulk.jobs`): kept in the
    media storage until the import has stored their documents, with its progress and outcome."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Importing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="imports")
    names = models.CharField(max_length=500, help_text="the uploaded files' names, for people")
    uploads = models.JSONField(default=list, help_text="their storage names, until imported")
    size = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    files = models.PositiveIntegerField(default=0)  # files read so far, skipped ones included
    imported = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    duplicates = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    # The first failed and skipped files: [path, reason] (their counts above are complete).
    problems = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Until when the import is known to be alive (`core.lease`): the periodic sweep
    # queues unfinished work again only once its lease ran out.
    lease_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.names

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def problem_list(self) -> list[dict[str, str]]:
        return [{"path": path, "reason": reason} for path, reason in self.problems]

    @property
    def summary(self) -> str:
        """What it did so far, as the page and the API say it."""
        if not self.files:
            return "nothing read yet" if not self.finished else "no file read"
        parts = [f"{self.imported:,} imported"]
        parts += [f"{self.failed:,} failed"] if self.failed else []
        parts += [f"{self.duplicates:,} already in the archive"] if self.duplicates else []
        parts += [f"{self.skipped:,} skipped"] if self.skipped else []
        return f"{self.files:,} file{'s' if self.files != 1 else ''} read: {', '.join(parts)}"


class UploadKey(models.Model):
    """An upload's `Idempotency-Key` and its first answer: a client retrying the upload with
    the same key (a lost answer, a timeout) gets that answer again instead of a second copy of
    its documents. Kept `KEPT_HOURS`, then deleted by the sweep."""

    KEPT_HOURS = 24

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    # What the key was used for ("POST /api/collections/3/documents/"): another request with
    # the same key is refused rather than answered with this one's answer.
    request = models.CharField(max_length=500)
    status = models.PositiveSmallIntegerField(default=0)
    body = models.JSONField(default=dict)
    document_ids = ArrayField(models.BigIntegerField(), default=list)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="uploadkey_user_key")]


class Verdict(models.Model):
    """A reviewer's judgement of a pair of documents (`start` and `end` None) or of one
    passage of it ([start, end) in `document`'s text, shared with `source`). Rows are never
    changed: a new judgement is a new row, and the latest row of a pair or passage is its
    verdict, so the history stays."""

    class Value(models.TextChoices):
        CONFIRMED = "confirmed", "Copying confirmed"
        NOT_COPYING = "not_copying", "Not copying"

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="verdicts")
    source = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    start = models.PositiveIntegerField(null=True, blank=True)
    end = models.PositiveIntegerField(null=True, blank=True)
    value = models.CharField(max_length=20, choices=Value.choices)
    note = models.TextField(blank=True, default="")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["document", "source"], name="verdict_pair")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(start__isnull=True, end__isnull=True)
                | models.Q(start__isnull=False, end__isnull=False, start__lt=models.F("end")),
                name="verdict_passage_range",
            )
        ]

    @property
    def passage(self) -> bool:
        return self.start is not None


class DocumentUnits(models.Model):
    """A document's sentence units for the disguised-copy stage (`detection.units_version`),
    made at the first check that compares it and read by the next ones (documents.sources):
    making them costs more than comparing them. `text_md5` is the md5 of the text they were
    made from: units of any other text are never read."""

    document = models.OneToOneField(
        Document, on_delete=models.CASCADE, primary_key=True, related_name="units"
    )
    version = models.CharField(max_length=500)
    text_md5 = models.CharField(max_length=32)
    # {"spans": [[start, end], ...], "terms": [[term, ...], ...]}: detection.seeding.Units.
    units = models.JSONField()
