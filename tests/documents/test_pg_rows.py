"""documents.index.rows.rows_copy: rows written by one COPY read back as a save writes them."""

from __future__ import annotations

import datetime

import pytest
from django.forms.models import model_to_dict

from documents.index.rows import rows_copy
from documents.models import Document

pytestmark = pytest.mark.django_db

FIELDS = dict(
    filename="a\tb\\c\n.txt", folder="x/y", size=12, checksum="f" * 64, text="Line one.\nTwo\t2.",
    language="en", status="done", progress=100, model_version="m1", indexed_xid=None,
    similarity=None, sentence_starts=[0, 10], sentence_ends=[9, 16],
    warnings=['a "quoted" note', {"nested": [1, None]}], site="example.com",
    boilerplate_lines=["\\ back", "tab\there"],
    citations={"quote": [[0, 4]], "bibliography": []},
    submitted_at=datetime.datetime(2026, 9, 1, 16, 20, tzinfo=datetime.UTC),
)  # fmt: skip


def test_copied_rows_read_back_as_saved_rows(archive):
    saved = Document(collection=archive, **FIELDS)
    saved.original.name = "originals/2026/11/a.txt"
    saved.save()
    copied = [Document(collection=archive, **FIELDS) for _ in range(2)]
    for document in copied:
        document.original.name = "originals/2026/11/a.txt"

    rows_copy(copied)

    assert copied[0].id and copied[1].id == copied[0].id + 1 and copied[0].id > saved.id
    expected = model_to_dict(Document.objects.get(id=saved.id), exclude=["id"])
    for document in copied:
        stored = Document.objects.get(id=document.id)
        assert model_to_dict(stored, exclude=["id"]) == expected
        assert stored.created_at == document.created_at and stored.updated_at is not None
    assert Document.objects.get(id=copied[0].id).original.name == "originals/2026/11/a.txt"


def test_given_ids_are_kept(archive):
    document = Document(id=987654, collection=archive, **FIELDS)
    rows_copy([document])
    assert Document.objects.get(id=987654).text == FIELDS["text"]
