"""A deduplication run of a collection, its clusters, and the signatures that made them.

A run stores the method it fitted on the collection and every document's signature,
so a document processed later is signed by the same fitted method and joins a cluster without
recomputing the collection (SimHash's streaming ids; see `dedup.services`).  Both are stored
in the versioned JSON form of `detection.neardup.encoding`.
"""

from django.db import models

from documents.models import Collection, Document


class DedupRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="dedup_runs")
    method = models.CharField(max_length=40)
    # detection.neardup.signature_version() of the fitted method; signatures of other versions
    # are never compared with this run's.
    signature_version = models.CharField(max_length=255, blank=True, default="")
    # The method after `fit` on the collection (template lines, feature IDF): new documents
    # must be signed with these statistics to be comparable with the stored signatures.
    fitted_method = models.BinaryField(null=True, blank=True, editable=False)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    progress = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)
    # Until when the run is known to be alive (`core.lease`): the periodic sweep
    # queues unfinished work again only once its lease ran out.
    lease_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.method} run {self.id} of {self.collection_id}"


class ClusterMember(models.Model):
    """A document of a run's cluster and its relation to the cluster's centre."""

    class Relation(models.TextChoices):
        CENTRE = "centre", "Centre"
        DUPLICATE = "duplicate", "Duplicate"
        CONTAINMENT = "containment", "Containment"
        # Linked to the cluster through another member, not to the centre itself.
        DIFFERENT = "different", "Via another member"

    run = models.ForeignKey(DedupRun, on_delete=models.CASCADE, related_name="members")
    cluster = models.PositiveIntegerField()
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    relation = models.CharField(max_length=20, choices=Relation.choices)
    score = models.FloatField()

    class Meta:
        ordering = ["run", "cluster", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "document"], name="dedup_member_unique")
        ]
        indexes = [models.Index(fields=["run", "cluster"])]


class Signature(models.Model):
    """A document's signature under a run's fitted method (`detection.neardup.encoding`)."""

    run = models.ForeignKey(DedupRun, on_delete=models.CASCADE, related_name="signatures")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    method = models.CharField(max_length=40)
    signature_version = models.CharField(max_length=255)
    data = models.BinaryField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "document"], name="dedup_signature_unique")
        ]
