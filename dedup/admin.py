from django.contrib import admin

from dedup.models import DedupRun


@admin.register(DedupRun)
class DedupRunAdmin(admin.ModelAdmin):
    list_display = ["id", "collection", "method", "status", "progress", "created", "finished"]
    list_filter = ["status", "method"]
    exclude = ["fitted_method"]
