"""End to end (issue 5): a DOCX and a PDF that copy passages from a web page, uploaded through
the UI (login + upload form) and the API, processed by a real Celery worker, give reports whose
passages overlap the copied text and are highlighted on both sides of the report page."""

from __future__ import annotations

import html
import io
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.documents.factories import wait_until_finished

TEMPLATE_TOP = (
    "东方资讯",
    "首页 | 新闻中心 | 国际 | 财经 | 体育",
    "来源：人民日报 1998-01-05 编辑：李明",
)
TEMPLATE_BOTTOM = ("分享到：微信 微博 QQ空间", "版权所有 © 东方资讯 未经授权禁止转载")


def paragraphs(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def web_page(article: list[str]) -> bytes:
    """The article inside a news site's template, as a saved page records it."""
    top = "".join(f"<div class='nav'>{html.escape(line)}</div>" for line in TEMPLATE_TOP)
    bottom = "".join(f"<div class='foot'>{html.escape(line)}</div>" for line in TEMPLATE_BOTTOM)
    body = "".join(f"<p>{html.escape(line)}</p>" for line in article)
    return (
        '<html><head><meta charset="utf-8"><title>东方资讯 - 新闻</title>'
        '<link rel="canonical" href="http://news.dongfang.example.com/1998/0105/1.html"></head>'
        f"<body>{top}<div class='article'><h1>中东和平进程</h1>{body}</div>{bottom}</body></html>"
    ).encode()


def docx_file(lines: list[str]) -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("课程论文", level=1)
    for line in lines:
        document.add_paragraph(line)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def pdf_file(lines: list[str]) -> bytes:
    """A PDF set with reportlab's built-in CJK font (no font file), lines wrapped CJK-style."""
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.cidfonts import UnicodeCIDFont
    from reportlab.platypus import Paragraph, SimpleDocTemplate

    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    style = ParagraphStyle("zh", fontName="STSong-Light", fontSize=11, leading=16, wordWrap="CJK")
    buffer = io.BytesIO()
    SimpleDocTemplate(buffer).build([Paragraph(html.escape(line), style) for line in lines])
    return buffer.getvalue()


def located(text: str, copied: str) -> tuple[int, int]:
    """Where a copied paragraph ended up in an extracted text (whitespace may differ)."""
    pattern = r"\s*".join(re.escape(char) for char in copied if not char.isspace())
    match = re.search(pattern, text)
    assert match, f"{copied[:20]}… not in the extracted text"
    return match.start(), match.end()


def overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@pytest.fixture
def texts(shared_data: Path) -> dict[str, list[str]]:
    sources = sorted((shared_data / "zh-reuse-dev" / "src").glob("source-document*.txt"))
    return {
        "article": paragraphs(sources[0]),
        "docx": paragraphs(sources[1]),
        "pdf": paragraphs(sources[2]),
    }


@pytest.mark.django_db(transaction=True)
def test_docx_and_pdf_copying_a_web_page_are_reported_and_highlighted(
    celery_worker, client, owner, texts
):
    article = texts["article"]
    copied = {"docx": [article[0], article[2]], "pdf": [article[1]]}
    # Each file: its own prose (another article) with the copied paragraphs set in between.
    essay = {
        kind: [texts[kind][0], copied[kind][0], *texts[kind][1:3], *copied[kind][1:]]
        for kind in ("docx", "pdf")
    }

    # UI: log in, create the collection, upload the page and the DOCX with the upload form.
    login = {"username": "owner", "password": "owner-pass"}
    assert client.post("/accounts/login/", login).status_code == 302
    response = client.post("/collections/", {"name": "Essays", "kind": "assignment"})
    collection = int(re.search(r"/collections/(\d+)/", response["Location"]).group(1))
    files = [
        SimpleUploadedFile("source.html", web_page(article)),
        SimpleUploadedFile("essay.docx", docx_file(essay["docx"])),
    ]
    assert client.post(f"/collections/{collection}/upload/", {"files": files}).status_code == 302

    # API: the PDF.
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=owner).key}")
    response = api.post(
        f"/api/collections/{collection}/documents/",
        {"file": SimpleUploadedFile("essay.pdf", pdf_file(essay["pdf"]))},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    listing = api.get(f"/api/collections/{collection}/documents/").json()
    ids = {entry["filename"]: entry["id"] for entry in listing}
    assert set(ids) == {"source.html", "essay.docx", "essay.pdf"}
    finished = wait_until_finished(lambda i: api.get(f"/api/documents/{i}/").json(), ids.values())
    assert {body["status"] for body in finished.values()} == {"done"}, finished

    source_text = api.get(f"/api/documents/{ids['source.html']}/text/").content.decode()
    # The page's main content is the article (extraction drops the site's navigation blocks).
    assert not any(line in source_text for line in TEMPLATE_TOP + TEMPLATE_BOTTOM)
    for kind in ("docx", "pdf"):
        document = ids[f"essay.{kind}"]
        report = api.get(f"/api/documents/{document}/report/").json()
        assert [s["document"] for s in report["sources"]] == [ids["source.html"]], report
        passages = report["sources"][0]["passages"]
        text = api.get(f"/api/documents/{document}/text/").content.decode()
        for paragraph in copied[kind]:
            here, there = located(text, paragraph), located(source_text, paragraph)
            assert any(
                overlaps((p["start"], p["end"]), here)
                and overlaps((p["source_start"], p["source_end"]), there)
                for p in passages
            ), (kind, paragraph[:20], passages)
        for own in texts[kind][:3]:
            if own not in copied[kind]:
                assert not any(
                    overlaps((p["start"], p["end"]), located(text, own)) for p in passages
                ), (kind, own[:20])

        page = client.get(f"/documents/{document}/report/?source={ids['source.html']}")
        body = page.content.decode()
        left = set(re.findall(r'<mark class="c\d+" data-pair="(\d+)" id="q-\1"', body))
        right = set(re.findall(r'<mark class="c\d+" data-pair="(\d+)" id="s-\1"', body))
        assert left and left == right == {str(n) for n in range(len(passages))}, (left, right)
