"""Site template lines of web pages, learned per collection and site and dropped before indexing.

Period feature strings drop features whose IDF is low in the collection; SimHash removes a site's
boilerplate (copyright notices, "share to" links, source/editor lines) by template matching after
main-content extraction. `extraction.learn_boilerplate` does both at line level; this
module decides *which pages learn together*, because learning over a mixed collection would also
strip a story that several sites reprinted — exactly what the detector must still see:

- only HTML pages take part (templates are a property of web sites, not of essays or PDFs);
- a page's site is the registrable domain of the URL it records (canonical link, og:url,
  <base href>, the dataset's <text id=URL>), else the ZIP folder it came in ("folder:<path>");
  a page with neither is left as it is;
- a line is template when it occurs on at least max(MIN_DOCS, MIN_SHARE x n) of the n pages of
  that site in the collection.

A processed page stores its hashed template keys (`Document.site_keys` for its lines as
indexed, `site_removed_keys` for the template lines taken out: `page_keys`), and triggers count
them per collection, site and key (`SiteKey`, migration 0022): a page learns its template from
the few keys counted on enough pages, not by re-reading the site's pages, so learning costs
the same on a site of thousands of pages as on a small one. The first pages of a site are
processed before there is anything to learn; once a later page teaches the template, the
earlier pages whose indexed lines hold it are queued again (`stale_pages`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.db import connection

from documents.models import Document, SiteKey
from documents.reading import ReadText, UnreadableFile
from extraction import Boilerplate
from extraction.boilerplate import text_keys

MIN_SHARE = 0.5  # a template line is on at least half of the site's pages ...
MIN_DOCS = 3  # ... and on at least three: two pages never make a template
PAGE_KEY = 0  # the key every counted page holds: its count is the site's number of pages

_URL_ATTRIBUTES = (
    r"""<link\b[^>]*?\brel=["']canonical["'][^>]*?\bhref=["']https?://([^/"':]+)""",
    r"""<link\b[^>]*?\bhref=["']https?://([^/"':]+)[^>]*?\brel=["']canonical["']""",
    r"""<meta\b[^>]*?\bproperty=["']og:url["'][^>]*?\bcontent=["']https?://([^/"':]+)""",
    r"""<meta\b[^>]*?\bcontent=["']https?://([^/"':]+)[^>]*?\bproperty=["']og:url["']""",
    r"""<base\b[^>]*?\bhref=["']https?://([^/"':]+)""",
    r"""<text\s+id=["']https?://([^/"':]+)""",
)
_PAGE_HOST = [re.compile(pattern.encode(), re.I) for pattern in _URL_ATTRIBUTES]
_SECOND_LEVEL = frozenset({"com", "net", "org", "gov", "edu", "ac", "co"})
_HEAD_BYTES = 16384


@dataclass(frozen=True)
class Page:
    """A document's text as indexed: extracted, its site's template lines removed."""

    text: str
    warnings: tuple[str, ...]
    site: str
    removed: tuple[str, ...]
    template: Boilerplate | None
    block_quotes: tuple[str, ...] = ()  # see extraction.Extracted


@dataclass(frozen=True)
class Stripped:
    text: str
    removed: tuple[str, ...]  # the template lines taken out, in text order


def page_site(data: bytes, text_format: str, folder: str) -> str:
    """The site a page learns its template with; "" when it takes no part (not HTML, or no
    URL and no folder)."""
    if text_format != "html":
        return ""
    host = _page_host(data[:_HEAD_BYTES])
    if host:
        return host
    return f"folder:{folder}"[:255] if folder else ""


def _page_host(head: bytes) -> str:
    """Registrable domain of the page's own URL: "news.sina.com.cn" -> "sina.com.cn"."""
    for pattern in _PAGE_HOST:
        match = pattern.search(head)
        if match:
            labels = match.group(1).decode("ascii", errors="replace").lower().split(".")
            keep = 3 if len(labels) > 2 and labels[-2] in _SECOND_LEVEL else 2
            return ".".join(labels[-keep:])[:255]
    return ""


def site_template(
    collection_id: int, site: str, texts: Sequence[str], *, exclude: Collection[int] = ()
) -> Boilerplate | None:
    """The template learned from `texts` (pages of the site being read: one page being
    processed, or an import's pages) and the other processed pages of the collection and site
    (not those in `exclude`), as `learn_boilerplate` would learn it from all of them; None
    when the site has too few pages to learn from. Reads the site's counted keys on enough
    pages to matter (`SiteKey`), not its pages."""
    if not site:
        return None
    counted = SiteKey.objects.filter(collection_id=collection_id, site=site)
    left_out = [
        frozenset(kept or ()) | frozenset(removed or ())
        for kept, removed in Document.objects.filter(
            id__in=exclude, collection_id=collection_id, site=site, site_keys__isnull=False
        ).values_list("site_keys", "site_removed_keys")
    ]
    stored = next(iter(counted.filter(key=PAGE_KEY).values_list("pages", flat=True)), 0)
    documents = stored - len(left_out) + len(texts)
    if documents < MIN_DOCS:
        return None
    # A key counted on fewer pages than this cannot reach the share with `texts` added.
    needed = max(MIN_DOCS, MIN_SHARE * documents) - len(texts)
    counts = Counter(
        dict(counted.filter(pages__gte=needed).exclude(key=PAGE_KEY).values_list("key", "pages"))
    )
    for keys in left_out:
        counts.subtract(keys & counts.keys())
    for text in texts:
        counts.update(text_keys(text))
    return Boilerplate.from_counts(counts, documents, min_share=MIN_SHARE, min_docs=MIN_DOCS)


def page_keys(page: Page) -> dict[str, list[int] | None]:
    """The Document fields that count `page` towards its site's template (`SiteKey`): the
    keys of its lines as indexed and of its removed lines; None for a page without a site."""
    if not page.site:
        return {"site_keys": None, "site_removed_keys": None}
    return {
        "site_keys": sorted(text_keys(page.text)),
        "site_removed_keys": sorted(text_keys("\n".join(page.removed))),
    }


def page_stripped(read: ReadText, site: str, template: Boilerplate | None) -> Page:
    """The page's text as indexed: `read` without its site's template lines, with a warning
    saying how many were removed. UnreadableFile when nothing but the template is left."""
    stripped = strip_template(read.text, template)
    warnings = list(read.warnings)
    if stripped.removed:
        warnings.append(
            f"{len(stripped.removed)} template lines of the site {site} removed "
            "(they recur on its other pages)."
        )
    if not stripped.text.strip():
        raise UnreadableFile("the page holds only its site's template.")
    return Page(stripped.text, tuple(warnings), site, stripped.removed, template, read.block_quotes)


def strip_template(text: str, template: Boilerplate | None) -> Stripped:
    """`text` without its template lines, and the lines removed."""
    if template is None or not template.keys:
        return Stripped(text, ())
    lines = text.split("\n")
    removed = tuple(line for line in lines if line.strip() and template.is_boilerplate(line))
    return Stripped(template.strip(text), removed)


def stale_pages(
    collection_id: int, site: str, template: Boilerplate | None, *, exclude: Collection[int] = ()
) -> list[Document]:
    """Processed pages of the site whose indexed lines still hold keys of `template` (they
    were processed before it could be learned), but those in `exclude`. Reads the site's pages
    only while some page keeps a template key: one waiting to be processed again, or one whose
    processing failed since (it keeps the text it had)."""
    if template is None or not template.keys:
        return []
    keys = sorted(template.keys)
    if not _kept_anywhere(collection_id, site, keys):
        return []  # as usual: the site's pages are not looked at
    return list(
        Document.objects.filter(
            collection_id=collection_id,
            site=site,
            status=Document.Status.DONE,
            site_keys__overlap=keys,
        )
        .exclude(id__in=exclude)
        .only("id")
    )


def _kept_anywhere(collection_id: int, site: str, keys: list[int]) -> bool:
    """Whether any page of the site holds one of `keys` in its lines as indexed: one probe of
    the unique index per key (a subquery per key, so that no planner, with or without
    statistics of the young table, scans the site's keys instead)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT bool_or((SELECT t.kept > 0 FROM {SiteKey._meta.db_table} t"
            " WHERE t.collection_id = %s AND t.site = %s AND t.key = k.key))"
            " FROM unnest(%s::bigint[]) AS k(key)",
            [collection_id, site, keys],
        )
        return bool(cursor.fetchone()[0])
