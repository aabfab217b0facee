"""Templates: the text every student was given (the assignment's prompt) is never reported
as copied between submissions, while what they really copied from each other still is."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from documents import selectors, services
from documents.models import Document
from documents.services import pipeline
from tests.documents.factories import WATER, intercept_task, processed

pytestmark = pytest.mark.django_db

PROMPT = (
    "Write an essay of about five hundred words on the history of your town. "
    "Describe at least two events that changed the lives of its inhabitants. "
    "Explain which sources you used and why you trust them."
)
ANN = PROMPT + "\n\nMy town was founded by fishermen who came from the north. " + WATER
BEN = PROMPT + "\n\nThe old mill burned down in the winter of the great storm. " + WATER


def stored_template(collection):
    """The prompt uploaded as a template, not processed yet."""
    return services.document_upload(
        collection=collection, filename="prompt.txt", data=PROMPT.encode(), template=True,
        enqueue=False,
    )  # fmt: skip


def read_template(collection):
    """The prompt uploaded as a template and processed, as the worker would."""
    template = stored_template(collection)
    services.document_process(document_id=template.id)
    return template


def copied_ranges(document):
    """The (start, end) ranges of the document copied from its peer, as the report shows."""
    (source,) = selectors.report_get(document=document).sources
    return [(p.start, p.end) for p in source.passages]


def test_without_a_template_the_prompt_counts_as_copied(assignment):
    processed(assignment, "ann.txt", ANN.encode())
    ben = processed(assignment, "ben.txt", BEN.encode())
    assert copied_ranges(ben)[0][0] < len(PROMPT)  # the prompt is in the copied passages


def test_a_template_keeps_the_prompt_out_and_the_real_copy_in(assignment):
    template = read_template(assignment)
    processed(assignment, "ann.txt", ANN.encode())
    ben = processed(assignment, "ben.txt", BEN.encode())
    ranges = copied_ranges(ben)
    assert ranges and all(start >= len(PROMPT) for start, _ in ranges)  # the prompt left out
    assert ranges[-1][1] == len(BEN)  # the copied report still found, to its end
    assert template.id not in {s.document for s in selectors.report_get(document=ben).sources}
    template.refresh_from_db()
    assert (template.status, template.template) == (Document.Status.DONE, True)
    assert not selectors.report_get(document=template).sources  # a template is not checked


def test_the_upload_form_and_the_api_mark_templates(browser, api, assignment):
    prompt = SimpleUploadedFile("prompt.txt", PROMPT.encode(), "text/plain")
    browser.post(f"/collections/{assignment.id}/upload/", {"files": [prompt], "template": "on"})
    response = api.post(
        f"/api/collections/{assignment.id}/documents/",
        {"file": SimpleUploadedFile("rubric.txt", b"Rubric.", "text/plain"), "template": "true"},
        format="multipart",
    )
    assert response.status_code == 201
    assert sorted(Document.objects.filter(template=True).values_list("filename", flat=True)) == [
        "prompt.txt", "rubric.txt",
    ]  # fmt: skip
    listed = api.get(f"/api/collections/{assignment.id}/documents/").json()
    assert {d["filename"]: d["template"] for d in listed} == {"prompt.txt": 1, "rubric.txt": 1}


def test_a_template_uploaded_later_gets_the_reports_checked_again_without_it(assignment):
    processed(assignment, "ann.txt", ANN.encode())
    ben = processed(assignment, "ben.txt", BEN.encode())
    assert copied_ranges(ben)[0][0] < len(PROMPT)  # the prompt counted, for now
    read_template(assignment)
    queued = Document.objects.filter(collection=assignment, status=Document.Status.QUEUED)
    assert sorted(queued.values_list("filename", flat=True)) == ["ann.txt", "ben.txt"]
    for document in queued.order_by("id"):  # what the worker does with the queued tasks
        services.document_process(document_id=document.id)
    ben.refresh_from_db()
    assert all(start >= len(PROMPT) for start, _ in copied_ranges(ben))


def test_a_template_has_no_report_page(browser, assignment):
    template = read_template(assignment)
    response = browser.get(f"/documents/{template.id}/report/", follow=True)
    assert b"has no report: it is a template" in response.content


def test_a_document_marked_as_template_later_leaves_the_reports(browser, assignment):
    prompt = processed(assignment, "prompt.txt", PROMPT.encode())  # uploaded as a submission
    processed(assignment, "ann.txt", ANN.encode())
    ben = processed(assignment, "ben.txt", BEN.encode())
    assert prompt.id in {s.document for s in selectors.report_get(document=ben).sources}

    response = browser.post(f"/documents/{prompt.id}/template/", {"template": "1"}, follow=True)
    assert b"is now a template" in response.content
    services.document_process(document_id=prompt.id)  # the queued run, as the worker would
    for document in Document.objects.filter(status=Document.Status.QUEUED).order_by("id"):
        services.document_process(document_id=document.id)
    assert prompt.id not in {s.document for s in selectors.report_get(document=ben).sources}
    assert all(start >= len(PROMPT) for start, _ in copied_ranges(ben))

    browser.post(f"/documents/{prompt.id}/template/", {"template": "0"})
    assert set(Document.objects.values_list("status", flat=True)) == {Document.Status.QUEUED}


def test_a_document_processing_while_a_template_is_read_is_queued_again(
    assignment, monkeypatch, django_capture_on_commit_callbacks
):
    """Two workers: ben reads the (still empty) templates, then the template finishes before
    ben stores its matches. Ben must be queued again, or its report keeps the prompt."""
    from documents import tasks as document_tasks
    from tests.documents.factories import upload

    queued: list[int] = []
    task = document_tasks.document_process_task
    intercept_task(monkeypatch, task.name, lambda task_id, **_: queued.append(task_id))
    processed(assignment, "ann.txt", ANN.encode())
    ben = upload(assignment, "ben.txt", BEN.encode())
    template = stored_template(assignment)
    detect = pipeline._detect

    def template_finishes_meanwhile(document, text, analysis):
        found = detect(document, text, analysis)
        if document.id == ben.id and template.id not in queued:
            queued.append(template.id)  # only once
            with django_capture_on_commit_callbacks(execute=True):
                services.document_process(document_id=template.id)
        return found

    monkeypatch.setattr(pipeline, "_detect", template_finishes_meanwhile)
    queued.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.document_process(document_id=ben.id)
    assert ben.id in queued  # checked again, now with the template's text


def test_a_template_in_an_archive_is_never_a_source(owner, assignment):
    """Archives take no templates any more; one stored by an earlier release stays out."""
    archive = services.collection_create(owner=owner, name="Handouts", kind="archive")
    handout = services.document_upload(
        collection=archive, filename="handout.txt", data=WATER.encode(), enqueue=False
    )
    Document.objects.filter(id=handout.id).update(template=True)
    services.document_process(document_id=handout.id)
    essay = processed(assignment, "essay.txt", BEN.encode())
    assert handout.id not in {s.document for s in selectors.report_get(document=essay).sources}


def test_an_archive_takes_no_templates(owner, api):
    archive = services.collection_create(owner=owner, name="Published", kind="archive")
    response = api.post(
        f"/api/collections/{archive.id}/documents/",
        {
            "file": SimpleUploadedFile("prompt.txt", PROMPT.encode(), "text/plain"),
            "template": "true",
        },
        format="multipart",
    )
    assert response.status_code == 400 and "is an archive" in response.json()["file"][0]
    article = processed(archive, "article.txt", WATER.encode())
    response = api.patch(f"/api/documents/{article.id}/", {"template": True}, format="json")
    assert response.status_code == 400 and "is an archive" in response.json()["template"][0]
    assert not Document.objects.filter(template=True).exists()
    assert not Document.objects.filter(status=Document.Status.QUEUED).exists()  # nothing re-run


def test_a_template_has_no_report_in_the_api_either(api, assignment):
    template = read_template(assignment)
    response = api.get(f"/api/documents/{template.id}/report/")
    assert response.status_code == 409 and "template" in response.json()["detail"]


def test_deleting_a_template_checks_the_collection_again_with_its_text(api, assignment):
    template = read_template(assignment)
    processed(assignment, "ann.txt", ANN.encode())
    ben = processed(assignment, "ben.txt", BEN.encode())
    assert all(start >= len(PROMPT) for start, _ in copied_ranges(ben))

    assert api.delete(f"/api/documents/{template.id}/").status_code == 204
    queued = Document.objects.filter(status=Document.Status.QUEUED).order_by("id")
    assert list(queued.values_list("filename", flat=True)) == ["ann.txt", "ben.txt"]
    for document in queued:  # what the worker does with the queued tasks
        services.document_process(document_id=document.id)
    ben.refresh_from_db()
    assert copied_ranges(ben)[0][0] < len(PROMPT)  # the prompt counts again, for every pair


def test_an_identical_copy_does_not_carry_the_template_into_its_passage(assignment):
    """Borders extend word by word while both texts agree: over a template both hold, too.
    The passage is cut at the template's sentences, on both sides."""
    read_template(assignment)
    ann = processed(assignment, "ann.txt", ANN.encode())
    again = processed(assignment, "ann-again.txt", ANN.encode())
    (source,) = selectors.report_get(document=again).sources
    assert source.document == ann.id
    assert all(p.start >= len(PROMPT) and p.source_start >= len(PROMPT) for p in source.passages)
    assert source.passages[-1].end == len(ANN)
    assert [(p.start, p.end) for p in source.passages] == [
        (p.source_start, p.source_end) for p in source.passages
    ]
    again.refresh_from_db()
    assert again.similarity < 1 - len(PROMPT) / len(ANN) + 0.01


def test_deleting_a_template_queues_the_documents_being_processed_too(api, assignment, worker):
    """They may have read the templates before the deletion: they run once more."""
    template = read_template(assignment)
    ann = processed(assignment, "ann.txt", ANN.encode())
    Document.objects.filter(id=ann.id).update(status=Document.Status.PROCESSING)
    worker.queue.clear()
    with worker.capture(execute=True):
        assert api.delete(f"/api/documents/{template.id}/").status_code == 204
    assert worker.queue == [ann.id]
