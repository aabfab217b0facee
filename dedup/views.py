"""Server-rendered pages: a collection's deduplication runs and clusters, and a pair view."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse

from core.http import AuthenticatedHttpRequest
from dedup import selectors, services
from dedup.forms import RunForm
from dedup.models import DedupRun
from detection import compare
from documents import policy
from documents.highlight import PALETTE_SIZE, highlight_html
from documents.models import Document

SINGLETONS_LISTED = 300

# The pair view compares inside the request: even with detection's bound on repeated features
# (max_sentence_df) a 1,000,000-character document takes seconds and hundreds of MB in the
# worst case (a block repeated 50 times), and the page carries both texts; the cost grows
# with the length.  Longer documents are not compared while the user waits (docs/detection.md,
# "Bounded work on repetitive texts").
PAIR_MAX_CHARS = 1_000_000


@login_required
def collection_dedup(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """GET: runs and the clusters of the latest finished run (or `?run=`); POST: start a run."""
    collection = policy.collection_for(
        user=request.user,
        collection_id=collection_id,
        need="write" if request.method == "POST" else "read",
    )
    form = RunForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        started = services.dedup_run_start(
            collection=collection, method=form.cleaned_data["method"]
        )
        messages.success(request, f"Deduplication with {started.method} is queued.")
        return redirect("dedup_collection", collection_id=collection.id)
    run = selectors.run_shown(collection=collection, run_id=_int(request.GET.get("run")))
    clusters = selectors.cluster_list(run=run) if run is not None else []
    runs = list(selectors.run_list(collection=collection))
    context = {
        "collection": collection,
        "rights": policy.collection_rights(user=request.user, collection=collection),
        "form": form,
        "runs": runs,
        # Reload while a run is under way so its progress and clusters appear.
        "active": any(r.status in (DedupRun.Status.QUEUED, DedupRun.Status.RUNNING) for r in runs),
        "run": run,
        "groups": [c for c in clusters if len(c.members) > 1],
    }
    singletons = [c.members[0] for c in clusters if len(c.members) == 1]
    # A large archive has thousands of documents without a near-duplicate: list the first.
    context["singletons"] = singletons[:SINGLETONS_LISTED]
    context["singleton_count"] = len(singletons)
    return render(request, "dedup/collection_dedup.html", context)


@login_required
def dedup_pair(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """Two documents of the collection side by side, shared passages highlighted
    (`detection.compare` on the fly: near-duplicate pairs have no stored matches).  A document
    paired with itself, or one above PAIR_MAX_CHARS, goes back to the runs with a message."""
    first, second = _int(request.GET.get("a")), _int(request.GET.get("b"))
    if first is None or second is None:
        raise Http404("Choose two documents (?a=…&b=…).")
    collection = policy.collection_for(user=request.user, collection_id=collection_id)
    left, right = selectors.pair_get(collection=collection, first=first, second=second)
    refusal = _pair_refusal(left, right)
    if refusal is not None:
        messages.error(request, refusal)
        return _back_to_dedup(collection_id, _int(request.GET.get("run")))
    passages = compare(left.text, right.text)
    context = {
        "collection": left.collection,
        "left": left,
        "right": right,
        "passage_rows": [
            {
                "number": n,
                "colour": n % PALETTE_SIZE,
                "excerpt": _excerpt(left.text[p.start : p.end]),
                "passage": p,
            }
            for n, p in enumerate(passages)
        ],
        "left_html": highlight_html(left.text, [(p.start, p.end) for p in passages], side="q"),
        "right_html": highlight_html(
            right.text, [(p.source_start, p.source_end) for p in passages], side="s"
        ),
        "run": _int(request.GET.get("run")),
    }
    return render(request, "dedup/pair.html", context)


def _pair_refusal(left: Document, right: Document) -> str | None:
    """Why the pair cannot be shown side by side, or None."""
    if left.id == right.id:
        return "Choose two different documents: a document compared with itself is one passage."
    longest = max((left, right), key=lambda document: len(document.text))
    if len(longest.text) > PAIR_MAX_CHARS:
        return (
            f"{longest.filename} has {len(longest.text):,} characters: documents above "
            f"{PAIR_MAX_CHARS:,} characters are too long to compare side by side while you "
            "wait (the comparison runs in this request)."
        )
    return None


def _back_to_dedup(collection_id: int, run: int | None) -> HttpResponse:
    url = reverse("dedup_collection", args=[collection_id])
    return redirect(f"{url}?run={run}" if run is not None else url)


def _excerpt(piece: str, length: int = 40) -> str:
    piece = " ".join(piece.split())
    return piece if len(piece) <= length else piece[:length] + "…"


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None
