from django.urls import path
from django.views.generic import RedirectView

from documents import team_views, views
from documents.views_overview import collection_collusion

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="collection_list"), name="home"),
    path("collections/", views.collection_list, name="collection_list"),
    path("collections/<int:collection_id>/", views.collection_detail, name="collection_detail"),
    path(
        "collections/<int:collection_id>/upload/",
        views.collection_upload,
        name="collection_upload",
    ),
    path(
        "collections/<int:collection_id>/archives/",
        views.collection_archives,
        name="collection_archives",
    ),
    path(
        "collections/<int:collection_id>/settings/",
        views.collection_settings,
        name="collection_settings",
    ),
    path(
        "collections/<int:collection_id>/delete/",
        views.collection_delete,
        name="collection_delete",
    ),
    path(
        "collections/<int:collection_id>/shares/",
        team_views.collection_share,
        name="collection_share",
    ),
    path("collections/<int:collection_id>/pairs/", views.collection_pairs, name="collection_pairs"),
    path(
        "collections/<int:collection_id>/exclusions/",
        views.collection_exclusions,
        name="collection_exclusions",
    ),
    path(
        "collections/<int:collection_id>/reanalyze/",
        views.collection_reanalyze,
        name="collection_reanalyze",
    ),
    path(
        "collections/<int:collection_id>/collusion/",
        collection_collusion,
        name="collection_collusion",
    ),
    path("imports/<int:import_id>/retry/", views.import_retry, name="import_retry"),
    path("documents/<int:document_id>/", views.document_detail, name="document_detail"),
    path("documents/<int:document_id>/report/", views.document_report, name="document_report"),
    path(
        "documents/<int:document_id>/original/",
        views.document_original,
        name="document_original",
    ),
    path(
        "documents/<int:document_id>/verdicts/",
        team_views.document_verdict,
        name="document_verdict",
    ),
    path("documents/<int:document_id>/recheck/", views.document_recheck, name="document_recheck"),
    path(
        "documents/<int:document_id>/submitted/",
        views.document_submitted,
        name="document_submitted",
    ),
    path("documents/<int:document_id>/delete/", views.document_delete, name="document_delete"),
    path(
        "documents/<int:document_id>/template/",
        views.document_template,
        name="document_template",
    ),
]
