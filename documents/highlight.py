"""Build the highlighted HTML of a text from character ranges (the report's side-by-side view).

Everything user-supplied is escaped here; templates insert the result without further
processing. Ranges may overlap (a sentence copied twice), so the text is cut at every range
boundary and each piece is marked with the first range covering it.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

PALETTE_SIZE = 8


def highlight_html(text: str, ranges: Sequence[tuple[int, int]], *, side: str) -> SafeString:
    """`text` escaped, with range i wrapped in `<mark class="c{i % PALETTE_SIZE}">`.

    The first piece of range i carries `id="{side}-{i}"`; every piece carries `data-pair=i`,
    which the page script uses to scroll to the paired passage on the other side.
    """
    cuts = _boundaries(len(text), ranges)
    parts: list[str] = []
    opened: set[int] = set()
    for left, right in zip(cuts, cuts[1:], strict=False):
        owner = _first_covering(ranges, left, right)
        piece = text[left:right]
        if owner is None:
            parts.append(escape(piece))
            continue
        anchor = "" if owner in opened else f"{side}-{owner}"
        opened.add(owner)
        parts.append(
            format_html(
                '<mark class="c{}" data-pair="{}"{}>{}</mark>',
                owner % PALETTE_SIZE,
                owner,
                format_html(' id="{}"', anchor) if anchor else "",
                piece,
            )
        )
    return mark_safe("".join(parts))  # noqa: S308 - every part above is escaped


def _boundaries(length: int, ranges: Sequence[tuple[int, int]]) -> list[int]:
    points = {0, length}
    for start, end in ranges:
        points.add(max(0, min(start, length)))
        points.add(max(0, min(end, length)))
    return sorted(points)


def _first_covering(ranges: Sequence[tuple[int, int]], left: int, right: int) -> int | None:
    for number, (start, end) in enumerate(ranges):
        if start <= left and right <= end and start < end:
            return number
    return None
