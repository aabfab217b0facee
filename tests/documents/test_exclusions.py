"""Exclusions: quoted text, reference lists, small matches and one source left out of a
report's similarity, from the collection's settings or toggled on one report, recomputed
from the stored passages."""

from __future__ import annotations

import pytest

from documents import selectors, services
from documents.exclusions import Rules
from documents.models import Document, Match
from tests.documents.factories import processed

pytestmark = pytest.mark.django_db

SOURCE = (
    "Rivers shape the land they cross over thousands of years. "
    "Water is the driving force of all nature, and no landscape escapes its slow and patient "
    "work. Floods carry fertile soil far from the mountains into the wide valleys below. "
    "Farmers have settled along the banks of great rivers since the earliest times."
)
QUOTER = (
    "My essay looks at the farms of my home village and how they changed.\n"
    "As one geographer put it, “Water is the driving force of all nature, and no landscape "
    "escapes its slow and patient work.” (Smith 2001, p. 12)\n"
    "In our village the old mill stood beside the stream for two hundred years before it "
    "burned.\nMy grandfather remembers the summer when the stream ran dry for the first time."
)
BIBLIOGRAPHY = (
    "References\n"
    "Smith, J. (2001). Rivers and the shaping of landscapes. Oxford University Press, pp. 10-45.\n"
    "Miller, A. and Chen, L. (2015). Floods and fertile valleys in the history of farming. "
    "Journal of Rural Studies, 31(2), 101-118.\n"
    "Garcia, M. et al. (2019). Settlements along great rivers since the earliest times. "
    "Cambridge University Press.\n"
)
BICYCLES = (
    "Bicycles changed the way people in cities moved around at the end of the century.\n"
    "Cheap frames and rubber tyres let workers ride to factories far from their homes.\n"
)
GARDEN = (
    "The school garden grew beans, potatoes and sunflowers taller than the teachers.\n"
    "Every class had its own bed and a notebook to record the weather and the harvest.\n"
)
CN_REFERENCES = (
    "参考文献\n"
    "[1] 王晓明. 城市交通与居民出行方式的变迁[J]. 城市规划学刊, 2018, (3): 45-52.\n"
    "[2] 李华, 张伟. 中国近代城市化进程研究[M]. 北京: 人民出版社, 2015.\n"
    "[3] 陈静. 公共自行车系统对城市交通的影响分析[J]. 交通运输研究, 2020, 6(2): 88-95.\n"
)


def _report(document: Document, **rules: object) -> selectors.Report:
    base = Rules.of(document.collection)
    fields = {
        "quotes": base.quotes,
        "bibliography": base.bibliography,
        "min_words": base.min_words,
        **rules,
    }
    return selectors.report_get(document=document, rules=Rules(**fields))  # type: ignore[arg-type]


@pytest.fixture
def quoted(assignment, archive):
    processed(archive, "rivers.txt", SOURCE.encode())
    return processed(assignment, "quoter.txt", QUOTER.encode())


def test_a_quoted_passage_is_excluded_by_default_and_counts_when_toggled(quoted):
    assert quoted.similarity == 0.0
    report = selectors.report_get(document=quoted)
    [source] = report.sources
    assert [p.excluded for p in source.passages] == ["quote"]
    assert report.similarity == source.similarity == 0.0
    counted = _report(quoted, quotes=False)
    assert [p.excluded for p in counted.sources[0].passages] == [None]
    assert counted.similarity > 0.2


def test_the_quote_comes_from_the_stored_ranges(quoted):
    start, end = quoted.citations["quote"][0]
    assert quoted.text[start:end].startswith("“Water is the driving force")
    assert quoted.citations["bibliography"] == []


def test_a_shared_reference_list_gives_no_similarity(assignment):
    first = processed(assignment, "bicycles.txt", (BICYCLES + BIBLIOGRAPHY).encode())
    second = processed(assignment, "garden.txt", (GARDEN + BIBLIOGRAPHY).encode())
    first.refresh_from_db()
    assert (first.similarity, second.similarity) == (0.0, 0.0)
    report = selectors.report_get(document=second)
    assert {p.excluded for s in report.sources for p in s.passages} == {"bibliography"}
    assert _report(second, bibliography=False).similarity > 0.3
    assert Match.objects.filter(document=second).get().similarity == 0.0  # the pair too


def test_a_chinese_reference_list_is_excluded(assignment):
    first = processed(
        assignment, "a.txt", ("城市里的自行车越来越多了。\n" + CN_REFERENCES).encode()
    )
    second = processed(
        assignment, "b.txt", ("学校的花园里种满了向日葵。\n" + CN_REFERENCES).encode()
    )
    assert second.citations["bibliography"]
    report = selectors.report_get(document=second)
    assert report.sources and report.similarity == 0.0
    first.refresh_from_db()
    assert first.similarity == 0.0


def test_small_matches_are_excluded_below_the_word_count(assignment, archive):
    processed(archive, "rivers.txt", SOURCE.encode())
    copier = processed(
        assignment,
        "copier.txt",
        b"My own words about the farm come first here. Floods carry fertile soil far from "
        b"the mountains into the wide valleys below. Then my own words end the essay today.",
    )
    [source] = selectors.report_get(document=copier).sources
    [passage] = source.passages
    assert passage.excluded is None and copier.similarity > 0
    assert [p.excluded for p in _report(copier, min_words=50).sources[0].passages] == ["small"]
    assert _report(copier, min_words=50).similarity == 0.0


def test_one_source_can_be_left_out_of_a_report(assignment, archive):
    processed(archive, "rivers.txt", SOURCE.encode())
    copier = processed(assignment, "copier.txt", (SOURCE + " " + GARDEN).encode())
    [source] = selectors.report_get(document=copier).sources
    report = _report(copier, sources=frozenset({source.document}))
    assert report.similarity == 0.0
    assert report.sources[0].excluded
    assert {p.excluded for p in report.sources[0].passages} == {"source"}


def test_changing_the_settings_recomputes_the_stored_similarities(assignment, quoted):
    services.collection_exclusions_set(collection=quoted.collection, exclude_quotes=False)
    quoted.refresh_from_db()
    assert quoted.similarity > 0.2
    assert Match.objects.get(document=quoted).similarity == quoted.similarity
    services.collection_exclusions_set(collection=quoted.collection, exclude_quotes=True)
    quoted.refresh_from_db()
    assert quoted.similarity == 0.0


def test_the_api_takes_the_settings_and_the_report_toggles(api, quoted):
    collection = quoted.collection
    body = api.get(f"/api/collections/{collection.id}/").json()
    assert (body["exclude_quotes"], body["exclude_bibliography"], body["min_match_words"]) == (
        True,
        True,
        8,
    )
    answer = api.patch(
        f"/api/collections/{collection.id}/",
        {"exclude_quotes": False, "min_match_words": 5},
        format="json",
    )
    assert answer.status_code == 200
    assert (answer.json()["exclude_quotes"], answer.json()["min_match_words"]) == (False, 5)
    report = api.get(f"/api/documents/{quoted.id}/report/").json()
    assert report["similarity"] > 0.2
    assert report["settings"] == {
        "exclude_quotes": False,
        "exclude_bibliography": True,
        "min_match_words": 5,
        "exclude_source": [],
    }
    toggled = api.get(f"/api/documents/{quoted.id}/report/?exclude_quotes=1").json()
    assert toggled["similarity"] == 0.0
    assert toggled["sources"][0]["passages"][0]["excluded"] == "quote"
    source = toggled["sources"][0]["document"]
    left_out = api.get(f"/api/documents/{quoted.id}/report/?exclude_source={source}").json()
    assert left_out["sources"][0]["passages"][0]["excluded"] == "source"
    assert left_out["similarity"] == 0.0


def test_the_api_refuses_bad_settings(api, quoted):
    collection = quoted.collection
    answer = api.patch(f"/api/collections/{collection.id}/", {"min_match_words": -1}, format="json")
    assert answer.status_code == 400 and "min_match_words" in answer.json()
    answer = api.get(f"/api/documents/{quoted.id}/report/?min_match_words=many")
    assert answer.status_code == 400


def test_the_report_page_greys_excluded_passages_and_toggles(client, owner, quoted):
    client.force_login(owner)
    page = client.get(f"/documents/{quoted.id}/report/").content.decode()
    assert 'class="excluded"' in page and "quoted" in page
    assert "0.0%" in page
    page = client.get(f"/documents/{quoted.id}/report/?exclude_quotes=0").content.decode()
    assert 'class="excluded"' not in page


def test_the_settings_page_changes_the_exclusions(client, owner, quoted):
    client.force_login(owner)
    collection = quoted.collection
    page = client.get(f"/collections/{collection.id}/").content.decode()
    assert 'id="exclusion-settings"' in page
    answer = client.post(
        f"/collections/{collection.id}/exclusions/",
        {"exclude_bibliography": "on", "min_match_words": "3"},  # quotes unticked
    )
    assert answer.status_code == 302
    collection.refresh_from_db()
    assert (collection.exclude_quotes, collection.exclude_bibliography) == (False, True)
    assert collection.min_match_words == 3
    quoted.refresh_from_db()
    assert quoted.similarity > 0.2


def test_the_schema_describes_the_new_fields_and_endpoints(api):
    schema = api.get("/api/schema/?format=json").json()
    paths, parts = schema["paths"], schema["components"]["schemas"]
    assert "/api/documents/{document_id}/report.pdf" in paths
    assert "/api/documents/{document_id}/report.html" in paths
    report = paths["/api/documents/{document_id}/report/"]["get"]
    assert {"exclude_quotes", "exclude_bibliography", "min_match_words", "exclude_source"} <= {
        p["name"] for p in report["parameters"]
    }
    reasons = parts["Passage"]["properties"]["excluded"]["oneOf"][0]["$ref"].rsplit("/", 1)[1]
    assert set(parts[reasons]["enum"]) == {"quote", "bibliography", "small", "source"}
    assert {"copied_by", "settings", "left_out", "submitted_at"} <= set(
        parts["Report"]["properties"]
    )
    assert "direction" in parts["Pair"]["properties"]
    assert "min_match_words" in parts["PatchedCollectionUpdate"]["properties"]
    assert "submitted_at" in parts["PatchedDocumentUpdate"]["properties"]


def test_a_large_collection_is_recomputed_by_a_task(
    monkeypatch, quoted, django_capture_on_commit_callbacks
):
    from documents.services import scoring
    from documents.task_names import REFRESH_TASK
    from tests.documents.factories import intercept_task

    queued: list[int] = []
    intercept_task(monkeypatch, REFRESH_TASK, queued.append)
    monkeypatch.setattr(scoring, "REFRESH_IN_REQUEST", 0)
    with django_capture_on_commit_callbacks(execute=True):
        services.collection_exclusions_set(collection=quoted.collection, exclude_quotes=False)
    assert queued == [quoted.collection_id]
    quoted.refresh_from_db()
    assert quoted.similarity == 0.0  # stored figures follow when the task has run ...
    assert selectors.report_get(document=quoted).similarity > 0.2  # ... reports at once
    services.collection_similarity_refresh(collection_id=quoted.collection_id)
    quoted.refresh_from_db()
    assert quoted.similarity > 0.2
