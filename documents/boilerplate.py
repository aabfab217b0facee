"""Site template lines of web pages, learned per collection and site and dropped before indexing.

Seed 000 drops features whose IDF is low in the collection; seed 001 removes a site's
boilerplate (copyright notices, "share to" links, source/editor lines) by template matching after
main-content extraction. `documents.extraction.learn_boilerplate` does both at line level; this
module decides *which pages learn together*, because learning over a mixed collection would also
strip a story that several sites reprinted — exactly what the detector must still see:

- only HTML pages take part (templates are a property of web sites, not of essays or PDFs);
- a page's site is the registrable domain of the URL it records (canonical link, og:url,
  <base href>, the dataset's <text id=URL>), else the ZIP folder it came in ("folder:<path>");
  a page with neither is left as it is;
- a line is template when it occurs on at least max(MIN_DOCS, MIN_SHARE x n) of the n pages of
  that site in the collection.

Nothing extra is stored to learn from: a processed page keeps its stripped lines in
`Document.boilerplate_lines`, so its original line set is `text` plus those lines. The first
pages of a site are processed before there is anything to learn; once a later page teaches the
template, the earlier pages that still contain it are queued again (`stale_pages`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from documents.extraction import Boilerplate, learn_boilerplate
from documents.models import Document
from documents.reading import ReadText, UnreadableFile

MIN_SHARE = 0.5  # a template line is on at least half of the site's pages ...
MIN_DOCS = 3  # ... and on at least three: two pages never make a template

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
    (not those in `exclude`); None when the site has too few pages to learn from."""
    if not site:
        return None
    others = (
        Document.objects.filter(collection_id=collection_id, site=site)
        .exclude(id__in=exclude)
        .exclude(text="")
        .values_list("text", "boilerplate_lines")
    )
    pages = [*texts, *("\n".join([stored, *removed]) for stored, removed in others)]
    if len(pages) < MIN_DOCS:
        return None
    return learn_boilerplate(pages, min_share=MIN_SHARE, min_docs=MIN_DOCS)


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
    return Page(stripped.text, tuple(warnings), site, stripped.removed, template)


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
    """Processed pages of the site whose stored text still holds lines of `template` (they were
    processed before it could be learned), but those in `exclude`."""
    if template is None or not template.keys:
        return []
    pages = Document.objects.filter(
        collection_id=collection_id, site=site, status=Document.Status.DONE
    ).exclude(id__in=exclude)
    return [
        page
        for page in pages.only("id", "text")
        if any(template.is_boilerplate(line) for line in page.text.split("\n") if line.strip())
    ]
