"""The worked example of docs/reports.md: a small class with quotes, reference lists and
copying (docs/examples/) gives the figures the documentation shows."""

from __future__ import annotations

import csv
import datetime
from pathlib import Path

import pytest

from documents import selectors, services
from documents.exclusions import Rules
from tests.documents.factories import processed

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


@pytest.fixture
def school(owner):
    """The archive and the class of the example, each essay handed in at its listed time."""
    archive = services.collection_create(owner=owner, name="Published", kind="archive")
    for path in sorted((EXAMPLES / "archive").iterdir()):
        processed(archive, path.name, path.read_bytes())
    essays = services.collection_create(owner=owner, name="Rivers, class 7b")
    with open(EXAMPLES / "class" / "submitted.csv", encoding="utf-8") as handle:
        times = {row["file"]: row["submitted_at"] for row in csv.DictReader(handle)}
    documents = {}
    for name, when in sorted(times.items(), key=lambda item: item[1]):
        document = services.document_upload(
            collection=essays,
            filename=name,
            data=(EXAMPLES / "class" / name).read_bytes(),
            submitted_at=datetime.datetime.fromisoformat(when),
            enqueue=False,
        )
        services.document_process(document_id=document.id)
        documents[name.removesuffix(".txt")] = document
    for document in documents.values():
        document.refresh_from_db()
    return essays, documents


def test_quotes_and_shared_references_give_nothing(school):
    _, d = school
    assert d["anna"].similarity == 0.0  # a cited quotation and a reference list
    assert d["chloe"].similarity == 0.0  # only the reference list shared with two others
    assert d["李明"].similarity == 0.0  # 「…」 quotation and 参考文献
    reasons = {
        p.excluded for s in selectors.report_get(document=d["anna"]).sources for p in s.passages
    }
    assert reasons == {"quote", "bibliography"}


def test_the_copiers_are_scored_and_the_originals_list_them(school):
    _, d = school
    assert d["ben"].similarity > 0.35
    assert d["王芳"].similarity > 0.3
    anna = selectors.report_get(document=d["anna"])
    assert [c.document for c in anna.copied_by] == [d["ben"].id]
    li = selectors.report_get(document=d["李明"])
    assert [c.document for c in li.copied_by] == [d["王芳"].id]


def test_the_pairs_say_who_copied(school):
    essays, d = school
    by_pair = {
        frozenset((p.document, p.other)): p for p in selectors.collection_pairs(collection=essays)
    }
    ben = by_pair[frozenset((d["ben"].id, d["anna"].id))]
    assert (ben.report_document, ben.report_source) == (d["ben"].id, d["anna"].id)
    assert frozenset((d["chloe"].id, d["anna"].id)) not in by_pair  # references only


def test_counting_quotes_gives_anna_her_quotation(school):
    _, d = school
    rules = Rules(quotes=False)
    report = selectors.report_get(document=d["anna"], rules=rules)
    assert 0.05 < report.similarity < 0.2
