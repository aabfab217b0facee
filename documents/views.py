"""Server-rendered pages. Thin: parse input, call one service or selector, render."""

from __future__ import annotations

import csv
import math

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.http import AuthenticatedHttpRequest
from documents import policy, selectors, services
from documents import verdicts as verdict_reads
from documents.bulk import jobs as imports
from documents.exclusions import Rules, rules_from_query
from documents.forms import (
    ArchivesForm,
    CollectionForm,
    DeleteCollectionForm,
    ExclusionsForm,
    NewCollectionForm,
    SubmittedForm,
    UploadForm,
)
from documents.highlight import PALETTE_SIZE, highlight_html
from documents.models import Collection
from documents.views_overview import report_overview
from workspaces import selectors as workspace_selectors
from workspaces import services as workspace_services


@login_required
def collection_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The collections the user can read; POST: create one in a workspace they write to."""
    workspaces = workspace_selectors.writable_workspaces(user=request.user)
    if not workspaces.exists():  # first visit: the personal workspace is where to start
        workspace_services.workspace_personal(user=request.user)
    form = NewCollectionForm(request.POST or None, workspaces=workspaces)
    if request.method == "POST" and form.is_valid():
        # One the user writes to (the form offers no other), or None: the personal one.
        collection = services.collection_create(
            owner=request.user,
            name=form.cleaned_data["name"],
            kind=form.cleaned_data["kind"],
            workspace=form.cleaned_data["workspace"],
        )
        return redirect("collection_detail", collection_id=collection.id)
    collections = selectors.collection_list(among=policy.readable_collections(user=request.user))
    return render(
        request, "documents/collection_list.html", {"form": form, "collections": collections}
    )


DOCUMENTS_PER_PAGE = 100


@login_required
def collection_detail(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    collection = policy.collection_for(user=request.user, collection_id=collection_id)
    choices = selectors.archive_choices(collection=collection)
    order = request.GET.get("sort", "uploaded")
    if order not in selectors.DOCUMENT_ORDERS:
        order = "uploaded"
    documents = Paginator(
        selectors.document_list(collection=collection, order=order), DOCUMENTS_PER_PAGE
    ).get_page(request.GET.get("page"))
    context = {
        "collection": collection,
        "rights": policy.collection_rights(user=request.user, collection=collection),
        "documents": documents,
        "order": order,
        "sort_choices": [("uploaded", "newest"), ("similarity", "most copied"), ("name", "name")],
        "counts": selectors.document_status_counts(collection=collection),
        "upload_form": UploadForm(),
        "imports": selectors.import_list(collection=collection)[: selectors.IMPORTS_LISTED],
        "settings_form": CollectionForm(initial={"name": collection.name, "kind": collection.kind}),
        "exclusions_form": ExclusionsForm(
            initial={
                "exclude_quotes": collection.exclude_quotes,
                "exclude_bibliography": collection.exclude_bibliography,
                "min_match_words": collection.min_match_words,
            }
        ),
        "delete_form": DeleteCollectionForm(),
        "archives_form": ArchivesForm(
            choices=choices, initial={"archives": collection.archives.all()}
        ),
        "has_archives": choices.exists(),
        "shares": selectors.share_list(archive=collection),
        "share_choices": workspace_selectors.workspace_list(user=request.user).exclude(
            id=collection.workspace_id
        ),
        # Archives were chosen and are all gone: checked against none until chosen again.
        "archives_gone": not collection.all_archives
        and not selectors.archives_chosen(collection=collection).exists(),
        "stale": selectors.documents_stale(
            collections=selectors.collection_scope(collection=collection)
        ).count(),
    }
    return render(request, "documents/collection_detail.html", context)


@login_required
@require_POST
def collection_settings(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """Rename the collection or change its kind."""
    collection = policy.collection_for(user=request.user, collection_id=collection_id, need="write")
    form = CollectionForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give the collection a name and a kind.")
        return redirect("collection_detail", collection_id=collection.id)
    services.collection_update(
        collection=collection, name=form.cleaned_data["name"], kind=form.cleaned_data["kind"]
    )
    messages.success(request, "Saved.")
    return redirect("collection_detail", collection_id=collection.id)


@login_required
@require_POST
def collection_exclusions(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """Change what the collection's reports leave out; the similarities follow at once."""
    collection = policy.collection_for(user=request.user, collection_id=collection_id, need="write")
    form = ExclusionsForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The shortest match counted is a number of words from 0 to 1000.")
        return redirect("collection_detail", collection_id=collection.id)
    services.collection_exclusions_set(collection=collection, **form.cleaned_data)
    messages.success(request, "Saved: the similarities are recomputed with these exclusions.")
    return redirect("collection_detail", collection_id=collection.id)


@login_required
@require_POST
def collection_delete(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """Delete the collection with its documents (hidden at once, removed in the background)."""
    collection = policy.collection_for(user=request.user, collection_id=collection_id, need="write")
    if not DeleteCollectionForm(request.POST).is_valid():
        messages.error(request, "Tick the box to confirm that the documents go too.")
        return redirect("collection_detail", collection_id=collection.id)
    services.collection_delete(collection=collection)
    messages.success(request, f"{collection.name} is being deleted with its documents.")
    return redirect("collection_list")


# An archive of a thousand documents can share passages in ~10,000 pairs, megabytes of page;
# the CSV keeps all of them.
PAIRS_PER_PAGE = 200


@login_required
def collection_pairs(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """The pairs of documents that share passages, most copied first; `?min=30` keeps pairs
    where at least 30 % of one side is shared, `?format=csv` downloads them."""
    collection = policy.collection_for(user=request.user, collection_id=collection_id)
    minimum = _percent_param(request.GET.get("min"))
    pairs = selectors.collection_pairs(
        collection=collection,
        visible=policy.readable_collections(user=request.user),
        minimum=minimum / 100,
    )
    if request.GET.get("format") == "csv":
        return _pairs_csv(request, collection, pairs)
    page = Paginator(pairs, PAIRS_PER_PAGE).get_page(request.GET.get("page"))
    verdicts = verdict_reads.pair_verdicts(collection=collection)
    rows = [(pair, verdicts.get(frozenset((pair.document, pair.other)))) for pair in page]
    context = {"collection": collection, "pairs": page, "rows": rows, "minimum": minimum}
    return render(request, "documents/collection_pairs.html", context)


def _percent_param(value: str | None) -> float:
    """A percentage from the query string; anything else (missing, garbage) is 0."""
    try:
        number = float(value or 0)
    except ValueError:
        return 0.0
    return min(max(number, 0.0), 100.0) if math.isfinite(number) else 0.0


def _pairs_csv(
    request: HttpRequest, collection: Collection, pairs: list[selectors.PairView]
) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"copied-pairs-collection-{collection.id}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response.write("\ufeff")  # BOM: spreadsheet programs then read the file as UTF-8
    writer = csv.writer(response)
    writer.writerow(
        ["document", "other document", "other's collection", "share of document (%)",
         "share of other (%)", "passages", "side by side", "who copied"]
    )  # fmt: skip
    for pair in pairs:
        report = reverse("document_report", args=[pair.report_document])
        writer.writerow(
            [_cell(pair.title), _cell(pair.other_title), _cell(pair.other_collection),
             "" if pair.share is None else f"{pair.share * 100:.1f}",
             "" if pair.other_share is None else f"{pair.other_share * 100:.1f}", pair.passages,
             request.build_absolute_uri(f"{report}?source={pair.report_source}"),
             _who_copied(pair)]
        )  # fmt: skip
    return response


def _who_copied(pair: selectors.PairView) -> str:
    """The pair's direction in words, as its page says it."""
    if pair.direction == "same_time":
        return "same time: cannot tell"
    copier, original = (pair.title, pair.other_title)
    if pair.direction == "b_from_a":
        copier, original = original, copier
    return _cell(f"{copier} copied from {original}")


def _cell(text: str) -> str:
    """A user-chosen name as a CSV cell that spreadsheet programs show, not evaluate: a
    leading =, +, -, @ or control character would start a formula (OWASP "CSV injection")."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@login_required
@require_POST
def collection_reanalyze(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    """Queue the stale documents of the collection and of the archives it is checked against;
    with `all`, every finished document of the collection (e.g. after the archive selection
    changed, to bring every report up to date)."""
    collection = policy.collection_for(user=request.user, collection_id=collection_id, need="write")
    if request.POST.get("all"):
        queued = services.collection_recheck(collection_id=collection.id)
    else:
        stale = selectors.documents_stale(
            collections=selectors.collection_scope(collection=collection)
        )
        queued = services.documents_reanalyze(documents=stale)
    messages.success(request, f"{queued} document(s) queued for analysis again.")
    return redirect("collection_detail", collection_id=collection.id)


@login_required
@require_POST
def collection_upload(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    collection = policy.collection_for(user=request.user, collection_id=collection_id, need="write")
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose at least one file to upload.")
        return redirect("collection_detail", collection_id=collection.id)
    if collection.kind == Collection.Kind.ARCHIVE and form.cleaned_data["bulk"]:
        return _import(request, collection, form.cleaned_data["files"])
    template = form.cleaned_data["template"]
    result = services.document_upload_files(
        collection=collection,
        files=((upload.name, upload.read()) for upload in form.cleaned_data["files"]),
        template=template,
        submitted_at=form.cleaned_data["submitted_at"],
    )
    for reason in result.refused:
        messages.error(request, reason)
    for name, path, reason in result.skipped:
        messages.warning(request, f"{name}: skipped {path}: {reason}")
    uploaded = result.documents
    if uploaded and template:
        messages.success(
            request,
            f"{uploaded} template file(s) stored: once read, the collection's documents are "
            "checked again without their text.",
        )
    elif uploaded:
        messages.success(request, f"{uploaded} file(s) queued for checking.")
    return redirect("collection_detail", collection_id=collection.id)


def _import(request: HttpRequest, collection: Collection, uploads: list) -> HttpResponse:
    job = imports.import_upload(
        collection=collection, files=[(upload.name, upload.read()) for upload in uploads]
    )
    messages.success(
        request,
        f"{job.names}: queued to be imported in bulk; the archive finds its documents as "
        "they are stored.",
    )
    return redirect("collection_detail", collection_id=collection.id)


@login_required
@require_POST
def import_retry(request: AuthenticatedHttpRequest, import_id: int) -> HttpResponse:
    """Run a failed bulk import again (what it stored is skipped)."""
    job = policy.import_for(user=request.user, import_id=import_id)
    imports.import_retry(job=job)
    messages.success(request, f"{job.names}: queued to be imported again.")
    return redirect("collection_detail", collection_id=job.collection_id)


@login_required
@require_POST
def collection_archives(request: AuthenticatedHttpRequest, collection_id: int) -> HttpResponse:
    collection = policy.collection_for(user=request.user, collection_id=collection_id, need="write")
    choices = selectors.archive_choices(collection=collection)
    form = ArchivesForm(request.POST, choices=choices)
    if form.is_valid():
        services.collection_archives_set(
            collection=collection, archive_ids=[a.id for a in form.cleaned_data["archives"]]
        )
        messages.success(
            request,
            "Archive selection saved. New uploads are checked against it; to bring the reports "
            "of the documents already checked up to date, use Settings → Check every document "
            "again.",
        )
    return redirect("collection_detail", collection_id=collection.id)


@login_required
def document_detail(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    document = policy.document_for(user=request.user, document_id=document_id)
    context = {
        "document": document,
        "rights": policy.collection_rights(user=request.user, collection=document.collection),
        "copied_by": selectors.copied_by(
            document=document, visible=policy.readable_collections(user=request.user)
        ),
        "identical": selectors.identical_uploads(document=document),
    }
    return render(request, "documents/document_detail.html", context)


@login_required
def document_original(request: AuthenticatedHttpRequest, document_id: int) -> FileResponse:
    """The uploaded file as it came, to those who may read it (a download, never inline)."""
    document = policy.document_for(user=request.user, document_id=document_id)
    try:
        handle = document.original.open("rb")
    except FileNotFoundError as error:
        raise Http404("The original file is no longer stored.") from error
    return FileResponse(handle, as_attachment=True, filename=document.filename)


@login_required
@require_POST
def document_recheck(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    document = policy.document_for(user=request.user, document_id=document_id, need="write")
    services.document_recheck(document=document)
    messages.success(request, f"{document.filename} is queued for checking again.")
    return redirect("document_detail", document_id=document.id)


@login_required
@require_POST
def document_submitted(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    """Say when the document was handed in; its collection's similarities follow."""
    document = policy.document_for(user=request.user, document_id=document_id, need="write")
    form = SubmittedForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give the date and time it was handed in.")
        return redirect("document_detail", document_id=document.id)
    services.document_submitted_set(
        document=document, submitted_at=form.cleaned_data["submitted_at"]
    )
    messages.success(request, f"{document.filename}: handed-in time saved.")
    return redirect("document_detail", document_id=document.id)


@login_required
@require_POST
def document_template(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    document = policy.document_for(user=request.user, document_id=document_id, need="write")
    template = request.POST.get("template") == "1"
    services.document_template_set(document=document, template=template)
    if template:
        note = "is now a template: the collection is checked again without its text."
    else:
        note = "is no longer a template: the collection is checked again with its text."
    messages.success(request, f"{document.filename} {note}")
    return redirect("document_detail", document_id=document.id)


@login_required
@require_POST
def document_delete(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    document = policy.document_for(user=request.user, document_id=document_id, need="write")
    collection_id, filename = document.collection_id, document.filename
    services.document_delete(document=document)
    messages.success(request, f"{filename} was deleted.")
    return redirect("collection_detail", collection_id=collection_id)


# Texts longer than this are shown shortened in the report (the stretches without copied
# text cut to REPORT_CONTEXT characters around the passages; `?full=1` shows everything):
# a whole book of a million characters or more makes a page of megabytes that a browser lays
# out for seconds.
LONG_TEXT = 100_000
REPORT_CONTEXT = 600


@login_required
def document_report(request: AuthenticatedHttpRequest, document_id: int) -> HttpResponse:
    document = policy.document_for(user=request.user, document_id=document_id)
    if document.status != document.Status.DONE or document.template:
        # Not checked (yet, or a template): a report would claim "nothing copied" for text
        # never compared.
        state = "a template" if document.template else document.get_status_display().lower()
        messages.info(request, f"{document.filename} has no report: it is {state}.")
        return redirect("document_detail", document_id=document.id)
    try:
        rules = rules_from_query(document.collection, request.GET)
    except ValueError as error:
        messages.error(request, f"{error} The collection's settings are shown.")
        rules = Rules.of(document.collection)
    report = selectors.report_get(document=document, rules=rules)
    if not request.GET.get("source"):  # every source at once; `?source=` one side by side
        long_text = len(document.text) > LONG_TEXT
        around = REPORT_CONTEXT if long_text and not request.GET.get("full") else None
        controls: dict[str, object] = {
            "toggles": _toggles(request, rules),
            "source_rows": _source_rows(request, report.sources, rules),
            "copied_by_rows": _source_rows(request, report.copied_by, rules),
        }
        return report_overview(
            request, report=report, around=around, long_text=long_text, controls=controls
        )
    chosen = _chosen_source(report, request.GET.get("source"))
    source = (
        None
        if chosen is None
        else selectors.source_text_get(document=document, source_id=chosen.document)
    )
    longest = max(len(document.text), len(source.text) if source else 0)
    shortened = longest > LONG_TEXT and not request.GET.get("full")
    around = REPORT_CONTEXT if shortened else None
    verdicts = verdict_reads.report_verdicts(document=document, report=report, chosen=chosen)
    source_rows = _source_rows(request, report.sources, rules)
    for row in source_rows:
        row["verdict"] = verdicts["source_verdicts"].get(row["source"].document)  # type: ignore[attr-defined]
    context: dict[str, object] = {
        "document": document,
        "report": report,
        "chosen": chosen,
        "shortened": shortened,
        "long_text": longest > LONG_TEXT,
        "toggles": _toggles(request, rules),
        "source_rows": source_rows,
        "copied_by_rows": _source_rows(request, report.copied_by, rules),
        "rights": policy.collection_rights(user=request.user, collection=document.collection),
    }
    context.update(verdicts)
    if chosen is not None:
        passages = chosen.passages
        context["passage_rows"] = [
            {
                "number": number,
                "colour": number % PALETTE_SIZE,
                "excerpt": _excerpt(document.text, passage.start, passage.end),
                "passage": passage,
                "reason": EXCLUSION_LABELS.get(passage.excluded or ""),
                "verdict": verdicts["passages"].get((passage.start, passage.end)),
            }
            for number, passage in enumerate(passages)
        ]
        greyed = {number for number, p in enumerate(passages) if p.excluded}
        context["left_html"] = highlight_html(
            document.text,
            [(p.start, p.end) for p in passages],
            side="q",
            context=around,
            excluded=greyed,
            muted=[(r.start, r.end) for r in report.left_out],
        )
        context["right_html"] = highlight_html(
            source.text if source else "",
            [(p.source_start, p.source_end) for p in passages],
            side="s",
            context=around,
            excluded=greyed,
        )
    else:
        context["left_html"] = highlight_html(document.text, [], side="q", context=around)
    return render(request, "documents/report.html", context)


# How the report page names why a passage does not count.
EXCLUSION_LABELS = {
    "quote": "quoted",
    "bibliography": "reference list",
    "small": "small match",
    "source": "source excluded",
}


def _toggles(request: HttpRequest, rules: Rules) -> dict[str, object]:
    """The report's exclusion toggles as its form shows them, and the query string that
    keeps them on the page's links (a chosen source, the whole text)."""
    kept = request.GET.copy()
    for name in ("source", "full"):
        kept.pop(name, None)
    return {
        "rules": rules,
        "query": kept.urlencode(),
        "sources": ",".join(str(source) for source in rules.excluded_sources),
    }


def _source_rows(
    request: HttpRequest, sources: tuple[selectors.SourceView, ...], rules: Rules
) -> list[dict[str, object]]:
    """The report's sources with the query that excludes each from the report (or takes it
    back), the other toggles kept."""
    rows = []
    for source in sources:
        query = request.GET.copy()
        query.pop("source", None)
        left_out = set(rules.sources) ^ {source.document}
        query["exclude_source"] = ",".join(str(number) for number in sorted(left_out))
        rows.append({"source": source, "toggle": query.urlencode()})
    return rows


def _excerpt(text: str, start: int, end: int, length: int = 40) -> str:
    piece = " ".join(text[start:end].split())
    return piece if len(piece) <= length else piece[:length] + "…"


def _chosen_source(report: selectors.Report, wanted: str | None) -> selectors.SourceView | None:
    for source in (*report.sources, *report.copied_by):
        if wanted and str(source.document) == wanted:
            return source
    return report.sources[0] if report.sources else None
