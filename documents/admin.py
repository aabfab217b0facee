from django.contrib import admin

from documents.models import ArchiveImport, Collection, Document, Verdict


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "workspace", "owner", "created_at"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["filename", "collection", "status", "progress", "similarity", "created_at"]
    list_filter = ["status"]
    # Large, and written by the index; `original` is not linked: uploads are never served
    # from MEDIA_URL (the owner downloads them from the document's page).
    exclude = ["text", "sentence_starts", "sentence_ends", "original"]
    readonly_fields = ["original_name"]

    @admin.display(description="original file")
    def original_name(self, document: Document) -> str | None:
        return document.original.name


@admin.register(ArchiveImport)
class ArchiveImportAdmin(admin.ModelAdmin):
    list_display = ["names", "collection", "status", "files", "imported", "failed", "created_at"]
    list_filter = ["status"]
    readonly_fields = ["uploads", "problems"]


@admin.register(Verdict)
class VerdictAdmin(admin.ModelAdmin):
    """Read-only: verdicts are a history, appended by the pages and the API."""

    list_display = ["document", "source", "start", "end", "value", "author", "created_at"]
    list_filter = ["value"]

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False
