"""Root URLs: accounts, the UI, the JSON API and its OpenAPI schema."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/", include("workspaces.api_urls")),
    path("api/", include("documents.api_urls")),
    path("", include("workspaces.urls")),
    path("", include("dedup.urls")),
    path("", include("documents.urls")),
]
# Uploaded files are never served from MEDIA_URL (not even with DEBUG on): they are students'
# and authors' work, so only those who may read them download them (`document_original`).
