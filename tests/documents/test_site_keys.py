"""Site template keys counted by triggers (migration 0022) and the template learned from them
(documents.boilerplate): the same template `learn_boilerplate` learns from the pages, without
reading the pages."""

from __future__ import annotations

import importlib
from collections import Counter

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from documents import boilerplate, services
from documents.index.rows import rows_copy
from documents.models import Document, SiteKey
from extraction import learn_boilerplate
from extraction.boilerplate import key_hash, line_key

pytestmark = pytest.mark.django_db

SITE = "example.com"
TEMPLATE = ["Example News | Home | World", "Share to: mail, print", "Copyright 2026 Example News"]


def page_text(number: int, *, template: int = 3) -> str:
    """A page of the site: its first `template` template lines around two lines of its own."""
    # Spelt in letters: short lines differing only in their digits are one key (a date line).
    name = "".join("abcdefghij"[int(digit)] for digit in str(number))
    own = [f"Story {name} begins with its own opening line.", f"Story {name} ends here."]
    return "\n".join([*TEMPLATE[: min(template, 1)], *own, *TEMPLATE[1:template]])


def page(collection, text: str, *, removed: tuple[str, ...] = (), site: str = SITE) -> Document:
    """A processed page as the pipeline stores it (text as indexed, removed lines, keys)."""
    stored = boilerplate.Page(text, (), site, removed, None)
    return Document(
        collection=collection, filename=f"{len(text)}.html", text=text, site=site,
        status=Document.Status.DONE, boilerplate_lines=list(removed),
        **boilerplate.page_keys(stored),
    )  # fmt: skip


def counted(collection) -> dict[tuple[str, int], tuple[int, int]]:
    """(site, key) -> (pages holding the key, pages holding it in their lines as indexed)."""
    return {
        (site, key): (pages, kept)
        for site, key, pages, kept in SiteKey.objects.filter(collection=collection).values_list(
            "site", "key", "pages", "kept"
        )
    }


def recounted(collection) -> dict[tuple[str, int], tuple[int, int]]:
    """What the counts must be: every counted page's keys, each once, and key 0."""
    pages: Counter[tuple[str, int]] = Counter()
    kept: Counter[tuple[str, int]] = Counter()
    for document in collection.documents.exclude(site_keys=None):
        keys = {*document.site_keys, *document.site_removed_keys, boilerplate.PAGE_KEY}
        pages.update((document.site, key) for key in keys)
        kept.update((document.site, key) for key in document.site_keys)
    return {key: (count, kept[key]) for key, count in pages.items()}


def test_the_counts_follow_inserts_copies_updates_and_deletes(archive):
    saved = [page(archive, page_text(n)) for n in range(3)]
    for document in saved:
        document.save()
    copied = [page(archive, page_text(n, template=n % 3 + 1)) for n in range(3, 8)]
    copied.append(page(archive, "Other site, other line.", site="other.org"))
    rows_copy(copied)
    assert counted(archive) == recounted(archive)
    assert counted(archive)[(SITE, boilerplate.PAGE_KEY)] == (8, 0)
    assert counted(archive)[("other.org", boilerplate.PAGE_KEY)] == (1, 0)

    # Processed again with the template taken out; then a page that no longer counts.
    stripped = boilerplate.Page(page_text(0, template=1), (), SITE, tuple(TEMPLATE[1:]), None)
    Document.objects.filter(id=saved[0].id).update(**boilerplate.page_keys(stripped))
    Document.objects.filter(id=saved[1].id).update(site_keys=None, site_removed_keys=None)
    assert counted(archive) == recounted(archive)
    assert counted(archive)[(SITE, boilerplate.PAGE_KEY)] == (7, 0)
    copyright = (SITE, key_hash(line_key(TEMPLATE[2])))
    assert counted(archive)[copyright] == (3, 2)  # removed from one page, kept on two

    Document.objects.filter(id__in=[saved[2].id, copied[0].id, copied[-1].id]).delete()
    assert counted(archive) == recounted(archive)
    assert ("other.org", boilerplate.PAGE_KEY) not in counted(archive)

    # A page that moves to another site takes its counts along, keys unchanged.
    Document.objects.filter(id=copied[1].id).update(site="moved.net")
    assert counted(archive) == recounted(archive)
    assert counted(archive)[("moved.net", boilerplate.PAGE_KEY)] == (1, 0)


def test_deleting_a_collection_leaves_no_counts(owner):
    collection = services.collection_create(owner=owner, name="site")
    rows_copy([page(collection, page_text(n)) for n in range(4)])
    assert counted(collection)

    services.collection_delete(collection=collection)
    services.collection_purge(collection_id=collection.id)

    assert not SiteKey.objects.filter(collection_id=collection.id).exists()


@pytest.mark.parametrize(("pages", "reading"), [(4, 1), (9, 1), (9, 6), (1, 8)])
def test_the_template_from_counts_is_the_one_learned_from_the_pages(archive, pages, reading):
    # Pages with 1-3 of the template lines: some lines are on more than half of them, some not;
    # `reading` pages being read (an import's chunk) beside the stored ones, one stored page
    # being read again.
    stored = [page(archive, page_text(n, template=n % 3 + 1)) for n in range(pages)]
    rows_copy(stored)
    texts = [page_text(100 + n, template=2) for n in range(reading)]

    template = boilerplate.site_template(archive.id, SITE, texts, exclude=[stored[0].id])

    others = [document.text for document in stored[1:]]
    expected = learn_boilerplate([*texts, *others], min_share=0.5, min_docs=3)
    assert template is not None and template.documents == pages - 1 + reading
    assert template.keys == expected.keys
    assert template.is_boilerplate(TEMPLATE[0])
    assert not template.is_boilerplate("Story baa ends here.")


def test_the_template_reads_the_same_few_rows_whatever_the_size_of_the_site(archive):
    def statements(pages: int) -> list[str]:
        rows_copy([page(archive, page_text(n)) for n in range(pages)])
        with CaptureQueriesContext(connection) as queries:
            template = boilerplate.site_template(archive.id, SITE, [page_text(0)])
        assert template is not None and template.is_boilerplate(TEMPLATE[2])
        return [query["sql"] for query in queries.captured_queries]

    small, large = statements(3), statements(60)

    assert len(small) == len(large)
    assert not any('"text"' in sql for sql in large)


def test_too_few_pages_learn_nothing(archive):
    rows_copy([page(archive, page_text(1))])

    assert boilerplate.site_template(archive.id, SITE, [page_text(2)]) is None
    assert boilerplate.site_template(archive.id, "", [page_text(2)]) is None


def test_stale_pages_are_those_whose_indexed_lines_hold_the_template(archive):
    early = page(archive, page_text(1))  # processed before the template was known
    stripped = page(archive, page_text(2, template=0), removed=tuple(TEMPLATE))
    rows_copy([early, stripped])
    template = learn_boilerplate([page_text(n) for n in range(3)])

    stale = boilerplate.stale_pages(archive.id, SITE, template, exclude=[])

    assert [document.id for document in stale] == [early.id]
    assert boilerplate.stale_pages(archive.id, SITE, template, exclude=[early.id]) == []
    # Once no page keeps a template line, the site's pages are not even looked at.
    Document.objects.filter(id=early.id).delete()
    with CaptureQueriesContext(connection) as queries:
        assert boilerplate.stale_pages(archive.id, SITE, template) == []
    assert not any("documents_document" in query["sql"] for query in queries.captured_queries)


def test_the_migration_counts_the_pages_stored_before_it(archive):
    rows_copy([page(archive, page_text(n), removed=(TEMPLATE[2],)) for n in range(3)])
    expected = counted(archive)
    Document.objects.filter(collection=archive).update(site_keys=None, site_removed_keys=None)
    assert counted(archive) == {}

    migration = importlib.import_module("documents.migrations.0022_site_key_counts")
    with connection.schema_editor() as editor:  # the database being migrated: the default
        migration.count_stored_pages(apps, editor)

    assert counted(archive) == expected == recounted(archive)
