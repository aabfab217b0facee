"""Site template lines (documents.boilerplate) on real zh-reprints-dev pages, set into HTML pages
that record their URL: learned per site, dropped before indexing, article lines kept."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from documents import selectors, services
from documents.boilerplate import page_site
from documents.models import Document
from tests.documents.factories import upload

pytestmark = pytest.mark.django_db

# zh-reprints-dev: doc00001, doc00003, doc00012 are different stories (0, 1, 4) of the site
# 东方资讯; doc00013 reprints doc00012 on the same site; doc00002 reprints doc00001 on 西部热线.
DONGFANG = ("doc00001.txt", "doc00003.txt", "doc00012.txt", "doc00013.txt")
TEMPLATE = (
    "东方资讯",
    "新闻中心 > 滚动 > 正文",
    "分享到：微信 微博 QQ空间",
    "版权所有 © 东方资讯 未经授权禁止转载",
)


def as_page(path: Path, host: str, *, canonical: bool = True) -> bytes:
    lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    url = f"http://www.{host}/news/{path.stem}.html"
    link = f'<link rel="canonical" href="{url}">' if canonical else ""
    body = "\n".join(f"<p>{html.escape(line)}</p>" for line in lines)
    head = f'<meta charset="utf-8"><title>{html.escape(lines[0])}</title>{link}'
    return f"<html><head>{head}</head><body>{body}</body></html>".encode()


def article_lines(path: Path) -> list[str]:
    """The page's long lines: its article paragraphs (template lines are all short)."""
    return [line for line in path.read_text(encoding="utf-8").split("\n") if len(line) > 60]


@pytest.fixture
def reprints(shared_data: Path) -> Path:
    return shared_data / "zh-reprints-dev" / "docs"


@pytest.fixture
def assignment(owner):
    return services.collection_create(owner=owner, name="pages")


def process_all(collection) -> dict[str, Document]:
    """Process every queued document, also those queued again once their site's template
    was learned, until none is left."""
    for _ in range(5):
        queued = list(collection.documents.filter(status=Document.Status.QUEUED))
        if not queued:
            break
        for document in queued:
            services.document_process(document_id=document.id)
    return {d.filename: d for d in collection.documents.all()}


def uploaded(collection, reprints, names, host, suffix=".html", **page_options):
    for name in names:
        if suffix == ".html":
            data = as_page(reprints / name, host, **page_options)
        else:
            data = (reprints / name).read_bytes()
        upload(collection, name.replace(".txt", suffix), data)
    return process_all(collection)


def sources_of(document: Document) -> set[str]:
    return {s.title for s in selectors.report_get(document=document).sources}


def test_the_site_is_the_pages_domain_or_its_folder():
    page = b'<html><head><link rel="canonical" href="https://news.sina.com.cn/c/1.shtml">'
    assert page_site(page, "html", "") == "sina.com.cn"
    og = b'<meta content="http://www.example.org/a" property="og:url">'
    assert page_site(og, "html", "batch/site") == "example.org"
    assert page_site(b"<html><p>x</p>", "html", "batch/site") == "folder:batch/site"
    assert page_site(b"<html><p>x</p>", "html", "") == ""
    assert page_site(page, "docx", "batch") == ""


def test_template_lines_are_dropped_and_article_lines_kept(assignment, reprints):
    pages = uploaded(assignment, reprints, DONGFANG, "dongfang.example.com")
    for name in DONGFANG:
        page = pages[name.replace(".txt", ".html")]
        assert page.status == "done" and page.site == "example.com"
        lines = page.text.split("\n")
        assert not set(TEMPLATE) & set(lines)
        assert set(TEMPLATE) <= set(page.boilerplate_lines)
        assert all(line in lines for line in article_lines(reprints / name))
        assert any("template lines" in warning for warning in page.warnings)


def test_different_stories_of_one_site_no_longer_match_through_the_template(
    assignment, owner, reprints
):
    pages = uploaded(assignment, reprints, DONGFANG, "dongfang.example.com")
    assert sources_of(pages["doc00001.html"]) == set()
    assert sources_of(pages["doc00003.html"]) == set()
    assert sources_of(pages["doc00012.html"]) == {"doc00013.html"}  # the same story reprinted
    # Control: the very same pages as plain text (no site, nothing stripped) do match.
    plain = services.collection_create(owner=owner, name="plain")
    texts = uploaded(plain, reprints, DONGFANG, "", suffix=".txt")
    assert "doc00003.txt" in sources_of(texts["doc00001.txt"])


def test_a_story_reprinted_by_other_sites_is_kept(assignment, reprints):
    uploaded(assignment, reprints, DONGFANG, "dongfang.example.com")
    upload(assignment, "doc00002.html", as_page(reprints / "doc00002.txt", "xibu.example.net"))
    pages = process_all(assignment)
    assert "doc00002.html" in sources_of(pages["doc00001.html"])
    assert pages["doc00002.html"].boilerplate_lines == []  # alone on its site: nothing learned


def test_pages_without_a_url_learn_by_zip_folder(assignment, reprints):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in DONGFANG:
            page = as_page(reprints / name, "", canonical=False)
            archive.writestr(f"dongfang/{name.replace('.txt', '.html')}", page)
    services.document_upload_batch(collection=assignment, filename="b.zip", data=buffer.getvalue())
    pages = process_all(assignment)
    assert {p.site for p in pages.values()} == {"folder:dongfang"}
    assert all(not set(TEMPLATE) & set(p.text.split("\n")) for p in pages.values())
