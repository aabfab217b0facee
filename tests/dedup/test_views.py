"""The deduplication page and the pair view: login, ownership, starting runs, clusters."""

from __future__ import annotations

import pytest

from dedup import services
from dedup.models import DedupRun
from documents import services as document_services
from tests.dedup.conftest import STORY_0, STORY_5, STORY_6
from tests.documents.factories import intercept_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_run(collection, owner, add_pages):
    pages = add_pages(*STORY_0, STORY_5[0])
    run = services.dedup_run_start(collection=collection, method="periods")
    services.dedup_run_execute(run_id=run.id)
    return run, pages


def test_the_page_requires_login(client, collection):
    response = client.get(f"/collections/{collection.id}/dedup/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_it_validates_ownership(client, stranger, finished_run, collection):
    _, pages = finished_run
    client.force_login(stranger)
    assert client.get(f"/collections/{collection.id}/dedup/").status_code == 404
    assert (
        client.post(f"/collections/{collection.id}/dedup/", {"method": "periods"}).status_code
        == 404
    )
    a, b = (pages[name].id for name in STORY_0)
    assert client.get(f"/collections/{collection.id}/dedup/pair/?a={a}&b={b}").status_code == 404
    assert not DedupRun.objects.exclude(id=finished_run[0].id).exists()


def test_the_form_defaults_to_periods_and_starts_a_run(
    browser, collection, django_capture_on_commit_callbacks, monkeypatch
):
    queued: list[int] = []
    intercept_task(monkeypatch, "dedup.run", queued.append)
    page = browser.get(f"/collections/{collection.id}/dedup/").content.decode()
    assert '<option value="periods" selected>' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post(f"/collections/{collection.id}/dedup/", {"method": "minhash"})
    run = DedupRun.objects.get(collection=collection)
    assert response.status_code == 302
    assert (run.method, run.status, queued) == ("minhash", "queued", [run.id])


def test_an_unknown_method_is_a_form_error(browser, collection):
    response = browser.post(f"/collections/{collection.id}/dedup/", {"method": "nope"})
    assert response.status_code == 200
    assert not DedupRun.objects.exists()


def test_it_lists_clusters_with_relation_score_and_pair_links(browser, collection, finished_run):
    run, pages = finished_run
    page = browser.get(f"/collections/{collection.id}/dedup/").content.decode()
    a, b = (pages[name].id for name in STORY_0)
    assert f"Clusters of run #{run.id} (periods)" in page
    assert "1 cluster(s) of near-duplicates; 1 document(s) without one." in page
    assert (
        f'href="/collections/{collection.id}/dedup/pair/?a={a}&amp;b={b}&amp;run={run.id}"' in page
    )
    assert 'data-relation="centre"' in page and 'data-relation="duplicate"' in page


def test_the_pair_view_highlights_shared_passages(browser, collection, finished_run):
    _, pages = finished_run
    a, b = (pages[name].id for name in STORY_0)
    page = browser.get(f"/collections/{collection.id}/dedup/pair/?a={a}&b={b}").content.decode()
    assert 'id="q-0"' in page and 'id="s-0"' in page
    assert "doc00001.txt ↔ doc00002.txt" in page


def test_the_pair_view_refuses_documents_of_another_collection(
    browser, owner, collection, finished_run, add_pages
):
    _, pages = finished_run
    elsewhere = document_services.collection_create(owner=owner, name="other")
    outsider = add_pages(STORY_5[1], into=elsewhere)[STORY_5[1]]
    a = pages[STORY_0[0]].id
    url = f"/collections/{collection.id}/dedup/pair/?a={a}&b={outsider.id}"
    assert browser.get(url).status_code == 404
    assert browser.get(f"/collections/{collection.id}/dedup/pair/?a={a}").status_code == 404


def test_a_long_list_of_documents_without_a_near_duplicate_is_cut(
    browser, collection, owner, add_pages, monkeypatch
):
    from dedup import views

    add_pages(STORY_0[0], STORY_5[0], *STORY_6)  # three different stories
    run = services.dedup_run_start(collection=collection, method="periods")
    services.dedup_run_execute(run_id=run.id)
    monkeypatch.setattr(views, "SINGLETONS_LISTED", 2)
    page = browser.get(f"/collections/{collection.id}/dedup/").content.decode()
    assert "0 cluster(s) of near-duplicates; 3 document(s) without one." in page
    assert "Documents without a near-duplicate (3)" in page
    assert "The first 2 of 3 are listed." in page
    assert page.count('<li><a href="/documents/') == 2


def test_pages_of_a_collection_being_deleted_are_gone(browser, collection, finished_run):
    run, pages = finished_run
    a, b = (pages[name].id for name in STORY_0)
    document_services.collection_delete(collection=collection)
    assert browser.get(f"/collections/{collection.id}/dedup/").status_code == 404
    assert browser.get(f"/collections/{collection.id}/dedup/pair/?a={a}&b={b}").status_code == 404
    assert browser.get(f"/api/dedup/{run.id}/").status_code == 404


def test_the_pair_view_refuses_a_document_paired_with_itself(browser, collection, finished_run):
    run, pages = finished_run
    a = pages[STORY_0[0]].id
    url = f"/collections/{collection.id}/dedup/pair/?a={a}&b={a}&run={run.id}"
    response = browser.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"/collections/{collection.id}/dedup/?run={run.id}"
    page = browser.get(url, follow=True).content.decode()
    assert "Choose two different documents" in page


def test_the_pair_view_refuses_documents_too_long_to_compare_in_the_request(
    browser, collection, finished_run, monkeypatch
):
    from dedup import views

    _, pages = finished_run
    first, second = (pages[name] for name in STORY_0)
    longest = max(len(first.text), len(second.text))
    compared = []
    monkeypatch.setattr(views, "compare", lambda *texts: compared.append(texts) or [])
    monkeypatch.setattr(views, "PAIR_MAX_CHARS", longest - 1)
    url = f"/collections/{collection.id}/dedup/pair/?a={first.id}&b={second.id}"
    response = browser.get(url, follow=True)
    assert response.redirect_chain == [(f"/collections/{collection.id}/dedup/", 302)]
    page = response.content.decode()
    assert f"{longest:,} characters" in page and "too long to compare side by side" in page
    assert compared == []
    monkeypatch.setattr(views, "PAIR_MAX_CHARS", longest)
    assert browser.get(url).status_code == 200 and len(compared) == 1
