from django.contrib import admin

from documents.models import Collection, Document


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "owner", "created_at"]


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    list_display = ["filename", "collection", "status", "progress", "similarity", "created_at"]
    list_filter = ["status"]
    exclude = ["text", "sentence_starts", "sentence_ends"]  # large, and written by the index
