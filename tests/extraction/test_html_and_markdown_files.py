"""HTML main content (trafilatura, with a fallback) and Markdown rendered to text."""

from __future__ import annotations

import pytest
import trafilatura

from extraction import ExtractionError, NoTextFound, extract
from extraction.webpage import densest_block_text

PARAGRAPHS = [
    f"这是正文的第{i}段，讲述了一个关于文本复制检测的故事，内容足够长以便被识别为正文。"
    for i in range(5)
]
TRADITIONAL = [
    f"這是正文的第{i}段，講述了一個關於文本複製檢測的故事，內容足夠長以便被識別為正文。"
    for i in range(5)
]
NAV = "".join(f'<li><a href="/c{i}">Link {i}</a></li>' for i in range(10))


def page(
    charset: str | None = "utf-8", body: str | None = None, paragraphs: list[str] = PARAGRAPHS
) -> str:
    meta = f'<meta charset="{charset}">' if charset else ""
    content = "".join(f"<p>{p}</p>" for p in paragraphs)
    body = body or (
        f"<nav><ul>{NAV}</ul></nav><article>{content}</article><footer>Copyright 2024</footer>"
    )
    return f"<html><head>{meta}<title>中文文本</title></head><body>{body}</body></html>"


def test_it_extracts_main_content_as_lines_without_navigation_or_footer():
    result = extract("news.html", page().encode("utf-8"))
    assert result.text.split("\n") == PARAGRAPHS
    assert result.format == "html"
    assert result.title == "中文文本"
    assert result.encoding == "utf-8"


@pytest.mark.parametrize(
    ("charset", "codec", "paragraphs"),
    [("gb2312", "gbk", PARAGRAPHS), ("gbk", "gbk", PARAGRAPHS), ("big5", "big5", TRADITIONAL)],
)
def test_it_decodes_with_the_declared_charset(charset, codec, paragraphs):
    result = extract("news.htm", page(charset, paragraphs=paragraphs).encode(codec))
    assert result.text.split("\n") == paragraphs


def test_it_detects_the_charset_when_none_is_declared():
    result = extract("news.html", page(charset=None).encode("gb18030"))
    assert result.text.split("\n") == PARAGRAPHS
    assert result.encoding == "gb18030"


def test_a_wrong_declared_charset_loses_to_the_bytes():
    # Declares GBK, is UTF-8: GBK decoding fails strictly and strict UTF-8 wins.
    result = extract("news.html", page(charset="gbk").encode("utf-8"))
    assert result.text.split("\n") == PARAGRAPHS


def test_table_layout_cells_become_lines_without_pipes():
    rows = "".join(f"<tr><td>{p}</td><td></td></tr>" for p in PARAGRAPHS)
    result = extract("old.html", page(body=f"<table>{rows}</table>").encode())
    assert "|" not in result.text
    assert result.text.split("\n") == PARAGRAPHS


def test_the_fallback_takes_the_densest_block():
    body = (
        f"<form><div id='menu'>{NAV}</div><div id='post'>"
        + "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
        + "</div><div id='side'><a href='/x'>很长的一个链接文字不算正文内容</a></div></form>"
    )
    assert densest_block_text(page(body=body)).split("\n") == PARAGRAPHS


def test_the_fallback_is_used_when_trafilatura_finds_nothing(monkeypatch):
    monkeypatch.setattr(trafilatura, "extract", lambda *args, **kwargs: None)
    result = extract("news.html", page().encode())
    assert result.text.split("\n") == PARAGRAPHS
    assert any("main content not recognised" in warning for warning in result.warnings)


def test_a_truncated_page_yields_the_text_before_the_cut():
    data = page().encode("utf-8")
    cut = data.index(PARAGRAPHS[3].encode())
    result = extract("cut.html", data[:cut])
    assert result.text.split("\n")[:3] == PARAGRAPHS[:3]
    assert PARAGRAPHS[4] not in result.text


def test_a_page_without_visible_text_is_an_error():
    with pytest.raises(NoTextFound):
        extract("empty.html", b"<html><head><script>var a=1;</script></head><body></body></html>")


def test_binary_garbage_named_html_is_an_error():
    with pytest.raises(ExtractionError, match="not text"):
        extract("x.html", b"\x89PNG\r\n\x1a\n" + bytes(100))


def test_markdown_is_rendered_to_plain_lines():
    source = "# 标题\n\n一段 **粗体** 和 [链接](http://example.com) 文字。\n\n- 列表一\n- 列表二\n"
    result = extract("readme.md", source.encode())
    assert result.text == "标题\n一段 粗体 和 链接 文字。\n列表一\n列表二"
    assert result.format == "markdown"
    assert result.title == "标题"


def test_markdown_in_gbk_is_decoded():
    source = "# 标题\n\n" + "".join(p + "\n\n" for p in PARAGRAPHS)
    result = extract("notes.markdown", source.encode("gbk"))
    assert result.text.split("\n") == ["标题", *PARAGRAPHS]


def test_link_dominated_lines_inside_the_article_are_dropped():
    related = "".join(f'<a href="/n{i}">相关新闻标题第{i}条</a> ' for i in range(4))
    inline = '正文中提到<a href="/x">一个链接</a>，但这一段主要是作者自己的文字，应当保留下来。'
    content = "".join(f"<p>{p}</p>" for p in PARAGRAPHS) + f"<p>{inline}</p><p>{related}</p>"
    result = extract("news.html", page(body=f"<article>{content}</article>").encode())
    lines = result.text.split("\n")
    assert lines[:5] == PARAGRAPHS
    assert "正文中提到一个链接，但这一段主要是作者自己的文字，应当保留下来。" in lines
    assert "相关新闻" not in result.text


@pytest.mark.parametrize("depth", [1_000, 5_000])
def test_a_page_nested_deeper_than_the_parser_allows_keeps_its_text(depth):
    paragraph = "The committee published its annual report on Monday morning."
    page = (
        "<html><head><title>Deep</title><script>var hidden = 1;</script></head><body>"
        + "<div>" * depth
        + f"<p>{paragraph}</p><p>互联网中存在着大量的网页。</p>"
        + "</div>" * depth
        + "</body></html>"
    )
    result = extract("deep.html", page.encode("utf-8"))
    assert result.text.split("\n") == [paragraph, "互联网中存在着大量的网页。"]
    assert result.title == "Deep"
