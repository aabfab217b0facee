from django.urls import path

from documents import api, team_api
from documents.api_graph import CollectionGraphApi

urlpatterns = [
    path("collections/", api.CollectionListApi.as_view(), name="api_collections"),
    path(
        "collections/<int:collection_id>/",
        api.CollectionDetailApi.as_view(),
        name="api_collection",
    ),
    path(
        "collections/<int:collection_id>/archives/",
        api.CollectionArchivesApi.as_view(),
        name="api_collection_archives",
    ),
    path(
        "collections/<int:collection_id>/shares/",
        team_api.CollectionSharesApi.as_view(),
        name="api_collection_shares",
    ),
    path(
        "collections/<int:collection_id>/shares/<int:workspace_id>/",
        team_api.CollectionShareApi.as_view(),
        name="api_collection_share",
    ),
    path(
        "collections/<int:collection_id>/documents/",
        api.CollectionDocumentsApi.as_view(),
        name="api_collection_documents",
    ),
    path(
        "collections/<int:collection_id>/imports/",
        api.CollectionImportsApi.as_view(),
        name="api_collection_imports",
    ),
    path(
        "collections/<int:collection_id>/progress/",
        api.CollectionProgressApi.as_view(),
        name="api_collection_progress",
    ),
    path(
        "collections/<int:collection_id>/pairs/",
        api.CollectionPairsApi.as_view(),
        name="api_collection_pairs",
    ),
    path(
        "collections/<int:collection_id>/graph/",
        CollectionGraphApi.as_view(),
        name="api_collection_graph",
    ),
    path("documents/<int:document_id>/", api.DocumentStatusApi.as_view(), name="api_document"),
    path(
        "documents/<int:document_id>/recheck/",
        api.DocumentRecheckApi.as_view(),
        name="api_document_recheck",
    ),
    path(
        "documents/<int:document_id>/report/",
        api.DocumentReportApi.as_view(),
        name="api_document_report",
    ),
    path(
        "documents/<int:document_id>/report.pdf",
        api.DocumentEvidencePdfApi.as_view(),
        name="api_document_report_pdf",
    ),
    path(
        "documents/<int:document_id>/report.html",
        api.DocumentEvidenceHtmlApi.as_view(),
        name="api_document_report_html",
    ),
    path(
        "documents/<int:document_id>/verdicts/",
        team_api.DocumentVerdictsApi.as_view(),
        name="api_document_verdicts",
    ),
    path(
        "documents/<int:document_id>/text/", api.DocumentTextApi.as_view(), name="api_document_text"
    ),
]
