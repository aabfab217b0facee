"""UI and JSON API URLs of near-duplicate detection (included at the site root)."""

from django.urls import path

from dedup import api, views

urlpatterns = [
    path("collections/<int:collection_id>/dedup/", views.collection_dedup, name="dedup_collection"),
    path("collections/<int:collection_id>/dedup/pair/", views.dedup_pair, name="dedup_pair"),
    path(
        "api/collections/<int:collection_id>/dedup/",
        api.CollectionDedupApi.as_view(),
        name="api_collection_dedup",
    ),
    path("api/dedup/<int:run_id>/", api.DedupRunApi.as_view(), name="api_dedup_run"),
]
