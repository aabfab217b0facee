"""Pages for work in a team: verdicts on a report's pairs and passages, sharing an archive
with another workspace."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.http import AuthenticatedHttpRequest
from documents import policy, services
from documents.forms import VerdictForm


@login_required
@require_POST
def document_verdict(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    """Record a verdict on the pair shown in the report (or one of its passages) and go
    back to it."""
    document = policy.document_for(user=request.user, document_id=document_id, need="review")
    form = VerdictForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a verdict on a pair of the report.")
        return redirect("document_report", document_id=document.id)
    fields = form.cleaned_data
    verdict = services.verdict_record(
        document=document,
        source_id=fields["source"],
        value=fields["verdict"],
        note=fields["note"],
        start=fields["start"],
        end=fields["end"],
        author=request.user,
    )
    what = "the passage" if verdict.passage else "the pair"
    messages.success(request, f"Verdict on {what}: {verdict.get_value_display()}.")
    url = reverse("document_report", args=[document.id])
    return redirect(f"{url}?source={verdict.source_id}#verdict")


@login_required
@require_POST
def collection_share(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """Share the archive with a workspace, or (`unshare`) stop sharing it."""
    archive = policy.collection_for(user=request.user, collection_id=collection_id, need="admin")
    workspace_id = _int(request.POST.get("workspace"))
    if workspace_id is None:
        messages.error(request, "Choose a workspace.")
    elif request.POST.get("unshare"):
        services.archive_unshare(archive=archive, workspace_id=workspace_id)
        messages.success(request, "The archive is no longer shared with that workspace.")
    else:
        share = services.archive_share(archive=archive, workspace_id=workspace_id)
        messages.success(request, f"Shared read-only with {share.workspace.name}.")
    return redirect("collection_detail", collection_id=archive.id)


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None
