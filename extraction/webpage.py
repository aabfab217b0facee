"""HTML → main-content text: trafilatura first, a plain block-text fallback when it finds nothing.

Options measured on zh-web-extraction (docs/extraction.md): favor_precision with tables kept, one
line per block (each table cell its own line: old Chinese sites lay pages out with tables) and
link-dominated lines dropped gives the best F1.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser

import trafilatura
from lxml import etree
from lxml import html as lxml_html

from .charsets import decode
from .errors import CorruptFile, NoTextFound
from .layout import paragraphs, tidy
from .results import Extracted

# <meta charset=...>, <meta http-equiv content="...; charset=...">, <?xml encoding=...?>.
_DECLARED = re.compile(rb"""(?:charset|encoding)\s*=\s*["']?\s*([A-Za-z][A-Za-z0-9_.:-]*)""", re.I)
# Blocks of trafilatura's XML output; everything else (ref, hi, del...) is inline text.
_XML_BLOCKS = frozenset("doc main div p head item list cell row table quote code".split())
# A line with at least this share of its visible characters inside links is navigation.
_MAX_LINK_DENSITY = 0.5
_DROP = tuple(
    "script style noscript template nav header footer aside select button iframe svg".split()
) + ("head",)
_CONTAINERS = frozenset("div td article section main body form blockquote".split())
_MIN_RUN = 10
_BLOCKS = tuple(
    "p div br li tr td th h1 h2 h3 h4 h5 h6 table section article blockquote pre dd dt".split()
)


# libxml2 keeps no text below 256 levels of nesting unless told to (then 2048): pages generated
# with unclosed tags nest that deep. Deeper still, _tag_stripped_text reads the text.
_HTML_PARSER = lxml_html.HTMLParser(huge_tree=True)
_XML_PARSER = etree.XMLParser(huge_tree=True)
_UNSEEN = frozenset(("script", "style", "title", "template", "noscript"))


def _trafilatura_xml(page: str | etree._Element) -> str | None:
    """trafilatura's main content of a page (its source or a parsed tree) as XML."""
    return trafilatura.extract(
        page,
        output_format="xml",
        include_links=True,
        include_tables=True,
        include_comments=False,
        favor_precision=True,
    )


def declared_charset(data: bytes) -> str | None:
    """The charset a page declares in its first 4 KB (meta tag or XML declaration), if any."""
    match = _DECLARED.search(data[:4096])
    return match.group(1).decode("ascii") if match else None


def extract_html(data: bytes) -> Extracted:
    """Main-content text of an HTML page, with its title and detected encoding."""
    source, encoding, warnings = decode(data, declared=declared_charset(data))
    main = _main_xml(source)
    text, quoted = "", []
    if main is not None:
        text = paragraphs(list(_block_lines(main)))
        quoted = [line for quote in main.iter("quote") for line in _block_lines(quote)]
    if not text and (text := densest_block_text(source)):
        warnings += ("main content not recognised: the page's largest text block was kept",)
        quoted = _blockquote_lines(source)
    if not text and (text := _tag_stripped_text(source)):
        warnings += (
            "the page is nested too deeply to find its main content: all its text was kept",
        )
    if not text:
        raise NoTextFound("the page holds no visible text")
    return Extracted(
        text=text,
        format="html",
        encoding=encoding,
        title=page_title(source),
        warnings=warnings,
        block_quotes=tuple(" ".join(line.split()) for line in quoted if line.strip()),
    )


def main_text(source: str) -> str:
    """trafilatura's main content as lines, link-dominated lines dropped ("" if none)."""
    main = _main_xml(source)
    return paragraphs(list(_block_lines(main))) if main is not None else ""


def _blockquote_lines(source: str) -> list[str]:
    """The lines of the page's <blockquote> elements (the fallback reader's quotations)."""
    root = _clean_tree(source)
    if root is None:
        return []
    return [line for quote in root.iter("blockquote") for line in _block_text(quote).split("\n")]


def _main_xml(source: str) -> etree._Element | None:
    """trafilatura's main content as XML (None when it finds none).

    trafilatura's XML output keeps the block structure (paragraphs, headings, list items, table
    cells) and the links; each block becomes one line, and a line whose visible characters are
    mostly link text (navigation bars, "related articles", tag clouds) is dropped.
    """
    xml = _trafilatura_xml(source)
    if not xml:
        # trafilatura's own parser keeps no text below 256 levels; ours does (huge_tree).
        tree = _parse(source)
        xml = _trafilatura_xml(tree) if tree is not None else None
    if not xml:
        return None
    root = etree.fromstring(xml.encode("utf-8"), parser=_XML_PARSER)
    main = root.find("main")
    return main if main is not None else root


def _block_lines(block: etree._Element) -> Iterator[str]:
    """The block's own text, cut at nested blocks (which give their own lines), in order."""
    parts: list[str] = [block.text or ""]
    link_chars = 0
    for child in block:
        if child.tag in _XML_BLOCKS:
            yield from _kept("".join(parts), link_chars)
            parts, link_chars = [], 0
            yield from _block_lines(child)
        elif child.tag == "lb":
            parts.append("\n")
        else:
            parts.append("".join(child.itertext()))
            link_chars += sum(_visible("".join(ref.itertext())) for ref in child.iter("ref"))
        parts.append(child.tail or "")
    yield from _kept("".join(parts), link_chars)


def _kept(text: str, link_chars: int) -> Iterator[str]:
    size = _visible(text)
    if size and link_chars / size < _MAX_LINK_DENSITY:
        yield text


def _visible(text: str) -> int:
    return len("".join(text.split()))


def visible_text(source: str) -> str:
    """All visible text, one line per block element, without scripts, styles and navigation."""
    root = _clean_tree(source)
    if root is None:
        return ""
    body = root.find(".//body")
    return _block_text(body if body is not None else root)


def densest_block_text(source: str) -> str:
    """The fallback main content: the container holding the most non-link prose.

    Readability-style: every text run of at least _MIN_RUN characters outside a link credits its
    nearest container element (div, td, article...); the best-credited container is the content.
    """
    root = _clean_tree(source)
    if root is None:
        return ""
    credit: dict[lxml_html.HtmlElement, int] = {}
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        for run, owner in ((element.text, element), (element.tail, element.getparent())):
            if run and owner is not None and owner.tag != "a" and len(run.strip()) >= _MIN_RUN:
                container = _container(owner)
                credit[container] = credit.get(container, 0) + len(run.strip())
    if not credit:
        return visible_text(source)
    return _block_text(max(credit, key=lambda element: credit[element]))


def _container(element: lxml_html.HtmlElement) -> lxml_html.HtmlElement:
    node = element
    while node.tag not in _CONTAINERS and node.getparent() is not None:
        node = node.getparent()
    return node


def _clean_tree(source: str) -> lxml_html.HtmlElement | None:
    root = _parse(source)
    if root is None:
        return None
    for element in list(root.iter(*_DROP)):
        element.drop_tree()
    for element in root.iter(*_BLOCKS):
        element.tail = "\n" + (element.tail or "")
        element.text = "\n" + (element.text or "")
    return root


def _block_text(element: lxml_html.HtmlElement) -> str:
    return tidy(re.sub(r"\n\s*\n+", "\n", element.text_content()))


def page_title(source: str) -> str | None:
    """The <title> text, whitespace collapsed; None when absent or empty."""
    root = _parse(source)
    title = root.findtext(".//title") if root is not None else None
    title = " ".join(title.split()) if title else ""
    return title or None


def _parse(source: str) -> lxml_html.HtmlElement | None:
    # lxml rejects str input that carries an XML encoding declaration; the text is decoded already.
    source = re.sub(r"^\s*<\?xml[^>]*\?>", "", source)
    if not source.strip():
        return None
    try:
        return lxml_html.document_fromstring(source, parser=_HTML_PARSER)
    except (etree.ParserError, ValueError) as error:
        raise CorruptFile("HTML could not be parsed") from error


def _tag_stripped_text(source: str) -> str:
    """The page's text with every tag removed (scripts and styles left out), one line per block:
    what is left of a page nested deeper than lxml can parse (2048 levels). Python's own HTML
    parser keeps no tree, so no depth limits it."""
    reader = _TextReader()
    reader.feed(source)
    reader.close()
    return tidy(re.sub(r"\n\s*\n+", "\n", "".join(reader.parts)))


class _TextReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0  # inside <script>, <style> or <title>

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag in _UNSEEN:
            self.hidden += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _UNSEEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)
