"""Build the highlighted HTML of a text from character ranges (the report's side-by-side view).

Everything user-supplied is escaped here; templates insert the result without further
processing. Ranges may overlap or repeat (a paragraph copied twice from one source gives two
passages with the same source range), so the text is cut at every range boundary, each piece
is marked with every range covering it, and every range gets its own anchor at its start.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

PALETTE_SIZE = 8
# A stretch is shortened only when that leaves out at least this much (`context`).
GAP_MINIMUM = 200


def highlight_html(
    text: str,
    ranges: Sequence[tuple[int, int]],
    *,
    side: str,
    context: int | None = None,
    classes: Sequence[str] | None = None,
    excluded: Container[int] = (),
    muted: Sequence[tuple[int, int]] = (),
) -> SafeString:
    """`text` escaped, with the pieces covered by ranges wrapped in `<mark>`.

    A piece covered by ranges i, j, … (ascending) is
    `<mark class="c{i % PALETTE_SIZE}" data-pair="i" data-pairs="i j …">`: it takes the colour
    of the first range covering it, and `data-pairs` lets the page script reach each of them.
    With `classes`, range i is coloured `classes[i]` instead (the match overview colours by
    source); a piece whose ranges have two classes gets `multi also-{second}` too, drawn
    striped, so a passage found in two sources shows both.
    Every range i has exactly one element with `id="{side}-{i}"` at its (clipped) start: the
    mark of its first piece, or — when an earlier range already put its id on that mark, or
    the range is empty — an empty `<span class="anchor" data-pairs="i">` right before it.

    A piece whose first range is in `excluded` (left out of the similarity), or that lies in
    one of the `muted` ranges (quoted text or a reference list that never counts), also has
    the class `excluded`, which greys it.

    With `context`, a long stretch without ranges keeps only `context` characters next to the
    marks around it and a `<span class="gap">` saying how much was left out: a book with a
    few copied passages stays a page a browser renders at once (the caller offers the whole
    text on request).
    """
    length = len(text)
    cuts = _boundaries(length, [*ranges, *muted])
    starting = _starts(length, ranges)
    covering = _covering(length, cuts, ranges)
    parts: list[str] = []
    for left, right in zip(cuts, cuts[1:], strict=False):
        owners = covering[left]
        anchors = starting.pop(left, [])
        mark_id = next((number for number in anchors if number in owners), None)
        if mark_id is not None:
            anchors.remove(mark_id)
        parts.extend(_anchor(side, number) for number in anchors)
        if owners or context is None:
            grey = bool(owners) and (
                owners[0] in excluded or any(s <= left and right <= e for s, e in muted)
            )
            parts.append(_piece(text[left:right], owners, side, mark_id, classes, grey))
        else:
            parts.append(_shortened(text[left:right], context, left == 0, right == length))
    # Ranges starting at (or clipped to) the end of the text still get a target.
    parts.extend(_anchor(side, number) for number in starting.pop(length, []))
    return mark_safe("".join(parts))  # noqa: S308 - every part above is escaped


def _piece(
    piece: str,
    owners: list[int],
    side: str,
    mark_id: int | None,
    classes: Sequence[str] | None,
    grey: bool,
) -> str:
    if not owners:
        return escape(piece)
    css = _mark_class(owners, classes)
    return format_html(
        '<mark class="{}{}" data-pair="{}"{} data-pairs="{}">{}</mark>',
        css,
        " excluded" if grey and not css.startswith("excluded") else "",
        owners[0],
        format_html(' id="{}-{}"', side, mark_id) if mark_id is not None else "",
        " ".join(str(number) for number in owners),
        piece,
    )


def _mark_class(owners: list[int], classes: Sequence[str] | None) -> str:
    if classes is None:
        return f"c{owners[0] % PALETTE_SIZE}"
    first = classes[owners[0]]
    second = next((classes[n] for n in owners[1:] if classes[n] != first), None)
    return first if second is None else f"{first} multi also-{second}"


def _shortened(piece: str, context: int, first: bool, last: bool) -> str:
    """An unmarked piece with its middle left out when long: `context` characters kept
    next to each neighbouring mark, and at the text's start (what the document is; a text
    with nothing copied is not a lone gap), none before its end."""
    head = context
    tail = 0 if last else context
    if len(piece) <= head + tail + GAP_MINIMUM:
        return escape(piece)
    left_out = len(piece) - head - tail
    return (
        escape(piece[:head])
        + format_html(
            '<span class="gap">[… {} characters without copied text …]</span>', f"{left_out:,}"
        )  # fmt: skip
        + escape(piece[len(piece) - tail :])
    )


def _anchor(side: str, number: int) -> str:
    return format_html(
        '<span class="anchor" id="{}-{}" data-pairs="{}"></span>', side, number, number
    )


def _clip(position: int, length: int) -> int:
    return max(0, min(position, length))


def _boundaries(length: int, ranges: Sequence[tuple[int, int]]) -> list[int]:
    points = {0, length}
    for start, end in ranges:
        points.add(_clip(start, length))
        points.add(_clip(end, length))
    return sorted(points)


def _starts(length: int, ranges: Sequence[tuple[int, int]]) -> dict[int, list[int]]:
    """The range numbers starting at each cut, in ascending order (the anchor owners)."""
    starting: dict[int, list[int]] = {}
    for number, (start, _end) in enumerate(ranges):
        starting.setdefault(_clip(start, length), []).append(number)
    return starting


def _covering(
    length: int, cuts: list[int], ranges: Sequence[tuple[int, int]]
) -> dict[int, list[int]]:
    """The numbers of the ranges covering each piece, ascending, by the piece's first cut: one
    sweep over the cuts (a range enters at its clipped start, leaves at its clipped end), so a
    report of thousands of passages (a book, every source at once) is not a scan of every
    range for every piece."""
    entering: dict[int, list[int]] = {}
    leaving: dict[int, list[int]] = {}
    for number, (start, end) in enumerate(ranges):
        start, end = _clip(start, length), _clip(end, length)
        if start < end:
            entering.setdefault(start, []).append(number)
            leaving.setdefault(end, []).append(number)
    active: set[int] = set()
    covering: dict[int, list[int]] = {}
    for cut in cuts[:-1]:
        active.difference_update(leaving.get(cut, ()))
        active.update(entering.get(cut, ()))
        covering[cut] = sorted(active)
    return covering
