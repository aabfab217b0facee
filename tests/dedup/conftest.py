"""Collections of real zh-reprints-dev pages, uploaded and processed through the documents
services (the same path as an upload in the product)."""

from __future__ import annotations

from pathlib import Path

import pytest

from documents import services as document_services
from documents.models import Collection, Document
from tests.documents.factories import processed

# Stories of zh-reprints-dev (clusters.tsv): 1–2 story 0; 3–6 story 1 (4 holds 3 plus another
# article: containment); 15–16 story 5, whose pages share doc00002's site template;
# 19 story 6.
STORY_0 = ("doc00001.txt", "doc00002.txt")
STORY_1 = ("doc00003.txt", "doc00004.txt", "doc00005.txt", "doc00006.txt")
STORY_5 = ("doc00015.txt", "doc00016.txt")
STORY_6 = ("doc00019.txt",)


@pytest.fixture
def reprints(shared_data: Path) -> Path:
    return shared_data / "zh-reprints-dev" / "docs"


@pytest.fixture
def collection(owner) -> Collection:
    return document_services.collection_create(owner=owner, name="reprints")


@pytest.fixture
def add_pages(reprints: Path, collection: Collection):
    """Upload and process pages of zh-reprints-dev; returns {filename: Document}."""

    def add(*names: str, into: Collection | None = None) -> dict[str, Document]:
        target = into or collection
        pages = {name: processed(target, name, (reprints / name).read_bytes()) for name in names}
        assert all(page.status == Document.Status.DONE for page in pages.values()), pages
        return pages

    return add
