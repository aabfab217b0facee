"""WordprocessingML → text blocks, walking the XML python-docx parsed.

python-docx's `iter_inner_content()` only sees `w:p` and `w:tbl` children and a paragraph's direct
runs, so it misses text real documents carry: content controls (`w:sdt`, e.g. cover pages and
abstracts), tracked insertions (`w:ins`), smart tags/custom XML wrappers and text boxes
(`w:txbxContent`). This walker reads them all, in document order. Deleted text (`w:delText`) and
field codes (`w:instrText`) are different elements and are never read; text boxes are read once
(the `mc:Fallback` VML copy of a DrawingML text box is skipped).
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
_PARAGRAPH, _TABLE, _ROW, _CELL = f"{W}p", f"{W}tbl", f"{W}tr", f"{W}tc"
_TEXT, _TEXT_BOX = f"{W}t", f"{W}txbxContent"
_SPACES = {f"{W}tab": " ", f"{W}br": "\n", f"{W}cr": "\n", f"{W}noBreakHyphen": "-"}
# Containers whose children are blocks again (content controls, custom XML, tracked moves).
_BLOCK_WRAPPERS = {f"{W}sdt", f"{W}sdtContent", f"{W}customXml", f"{W}ins", f"{W}moveTo"}
_SKIPPED = {f"{W}del", f"{W}moveFrom", f"{W}sdtPr", f"{W}rPr", f"{W}pPr", _MC_FALLBACK}


def blocks(container: etree._Element) -> Iterator[str]:
    """Text of each paragraph and table cell under a body, cell, header, footer or note."""
    for child in container:
        if child.tag == _PARAGRAPH:
            text, boxes = paragraph_text(child)
            yield text
            for box in boxes:
                yield from blocks(box)
        elif child.tag == _TABLE:
            for row in child.iter(_ROW):
                if _owning_table(row) is child:
                    for cell in row.iterchildren(_CELL):
                        yield from blocks(cell)
        elif child.tag in _BLOCK_WRAPPERS:
            yield from blocks(child)


# Paragraph styles that set a quotation: Word's built-in "Quote", "Intense Quote" and "Block
# Text" (stored under their English names in every UI language) and custom ones named so.
_QUOTE_STYLE_NAMES = ("quote", "block text", "blockquote", "引用", "引文")


def quote_paragraphs(body: etree._Element, styles: etree._Element | None) -> list[str]:
    """The texts of the body's paragraphs set in a quotation style."""
    names = {}
    if styles is not None:
        for style in styles.iter(f"{W}style"):
            name = style.find(f"{W}name")
            names[style.get(f"{W}styleId")] = name.get(f"{W}val") if name is not None else ""
    quoted: list[str] = []
    for paragraph in body.iter(_PARAGRAPH):
        style = paragraph.find(f"{W}pPr/{W}pStyle")
        if style is None:
            continue
        style_id = style.get(f"{W}val") or ""
        label = f"{style_id} {names.get(style_id) or ''}".lower()
        if any(word in label for word in _QUOTE_STYLE_NAMES):
            quoted.append(paragraph_text(paragraph)[0])
    return quoted


def paragraph_text(paragraph: etree._Element) -> tuple[str, list[etree._Element]]:
    """The paragraph's visible text and the text boxes anchored in it (read separately)."""
    parts: list[str] = []
    boxes: list[etree._Element] = []
    _collect(paragraph, parts, boxes)
    return "".join(parts), boxes


def _collect(element: etree._Element, parts: list[str], boxes: list[etree._Element]) -> None:
    for child in element:
        tag = child.tag
        if tag == _TEXT:
            parts.append(child.text or "")
        elif tag in _SPACES:
            parts.append(_SPACES[tag])
        elif tag == _TEXT_BOX:
            boxes.append(child)
        elif tag not in _SKIPPED and isinstance(tag, str):
            _collect(child, parts, boxes)


def _owning_table(row: etree._Element) -> etree._Element | None:
    # Rows may sit inside w:sdt/w:customXml wrappers; nested tables' rows belong to those tables.
    node = row.getparent()
    while node is not None and node.tag != _TABLE:
        node = node.getparent()
    return node
