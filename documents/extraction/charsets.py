"""Byte → str decoding with the encoding detected, never assumed, and newlines normalised.

Order of evidence, strongest first: a byte-order mark; an encoding declared by the caller (an HTML
<meta charset>) when the bytes really decode with it; strict UTF-8 (multi-byte UTF-8 almost never
decodes by accident); then charset-normalizer's statistical guess. GB2312/GBK labels are decoded as
GB18030, their superset, because pages labelled gb2312 routinely contain GBK-only characters.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

from .errors import CorruptFile

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
# Labels whose superset decodes strictly more real-world files without changing any character.
_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "cp936": "gb18030",
    "big5": "big5hkscs",
    "ascii": "utf-8",
    "iso-8859-1": "cp1252",
    "latin-1": "cp1252",
}
_SAMPLE_BYTES = 64 * 1024
_NEWLINES = re.compile(r"\r\n?|\u2028|\u2029|\x85")


def normalise_newlines(text: str) -> str:
    """CRLF, CR and Unicode line/paragraph separators → "\\n"."""
    return _NEWLINES.sub("\n", text)


def canonical(label: str) -> str | None:
    """Python codec name for an encoding label, widened to its superset; None if unknown."""
    try:
        name = codecs.lookup(label.strip().lower()).name
    except LookupError:
        return None
    return _SUPERSETS.get(name, name)


def bom_encoding(data: bytes) -> str | None:
    """The encoding announced by a byte-order mark, if any."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    return None


def decode(data: bytes, *, declared: str | None = None) -> tuple[str, str, tuple[str, ...]]:
    """Decode `data`, returning (text with "\\n" newlines, encoding name used, warnings).

    A UTF-8 file cut inside its last character (a truncated upload) is decoded without that
    character; a file with a few invalid bytes (common on real pages) gets U+FFFD for them; both
    are reported in a warning. Raises CorruptFile when no encoding decodes the bytes as text.
    """
    warnings: list[str] = []
    name = _detect(data, declared)
    if name == "utf-8" and _utf8_cut(data) < len(data):
        data = data[: _utf8_cut(data)]
        warnings.append("file ends inside a character (truncated?): the last character was dropped")
    text = data.decode(name, errors="replace")
    if bad := text.count("\ufffd") - data.decode(name, errors="ignore").count("\ufffd"):
        warnings.append(f"{bad} invalid byte sequence(s) in {name} text were replaced")
    return normalise_newlines(text.removeprefix("\ufeff")), name, tuple(warnings)


def _detect(data: bytes, declared: str | None) -> str:
    bom = bom_encoding(data)
    if bom:
        return bom
    name = canonical(declared) if declared else None
    if name and _decodes(data, name):
        return name
    if _decodes(data, "utf-8") or _utf8_cut(data) < len(data):
        return "utf-8"
    if name and _mostly_decodes(data, name):
        return name
    return _statistical_guess(data)


def _mostly_decodes(data: bytes, name: str) -> bool:
    """At most 1 in 200 characters is invalid: a real but slightly damaged file in `name`."""
    try:
        text = data.decode(name, errors="replace")
    except LookupError:
        return False
    return text.count("\ufffd") * 200 <= len(text)


def _utf8_cut(data: bytes) -> int:
    """Length of `data` without an incomplete trailing UTF-8 sequence, if that is all that fails."""
    if _decodes(data, "utf-8"):
        return len(data)
    for cut in (1, 2, 3):
        if len(data) > cut and data[-cut] >= 0xC0:  # the lead byte of the last sequence
            head = data[:-cut]
            if not head.isascii() and _decodes(head, "utf-8"):
                return len(head)
            break
    return len(data)


def _statistical_guess(data: bytes) -> str:
    """charset-normalizer's guess, overruled by a Chinese decoding that reads as common hanzi.

    charset-normalizer needs a few dozen characters; on a short GBK or Big5 file it may say
    cp949 or shift_jis. The product is for Chinese text, so GB18030 and Big5 are always tried
    too and the decoding with the largest share of frequently used hanzi wins (a wrong double-byte
    decoding yields rare characters).
    """
    best = from_bytes(data).best()
    guess = canonical(best.encoding) if best is not None else None
    names = [name for name in (guess, "gb18030", "big5hkscs", "utf-8") if name]
    candidates = [name for name in names if _decodes(data, name)]
    candidates = candidates or [name for name in names if _mostly_decodes(data, name)]
    if not candidates:
        raise CorruptFile("file is not readable text (unknown character encoding)")
    # Scoring a sample keeps a 20 MB file fast; a cut character at its end is simply ignored.
    sample = data[:_SAMPLE_BYTES]
    scores = {
        name: _common_hanzi_share(sample.decode(name, errors="ignore")) for name in candidates
    }
    top = max(scores.values())
    if guess in scores and (top < 0.2 or scores[guess] >= top):
        return guess
    return max(candidates, key=lambda name: scores[name])


def _common_hanzi_share(text: str) -> float:
    """Share of non-space characters that are frequently used hanzi.

    "Frequently used" = GB2312 level 1 (lead bytes 0xB0-0xD7, 3755 simplified characters) or Big5
    level 1 (lead bytes 0xA4-0xC6, 5401 traditional characters).
    """
    chars = [c for c in text if not c.isspace()]
    if not chars:
        return 0.0
    return sum(1 for c in chars if _is_common_hanzi(c)) / len(chars)


def _is_common_hanzi(char: str) -> bool:
    if not "\u4e00" <= char <= "\u9fff":
        return False
    for codec, low, high in (("gb2312", 0xB0, 0xD7), ("big5", 0xA4, 0xC6)):
        try:
            lead = char.encode(codec)[0]
        except UnicodeEncodeError:
            continue
        if low <= lead <= high:
            return True
    return False


def _decodes(data: bytes, name: str) -> bool:
    try:
        data.decode(name)
    except (UnicodeDecodeError, LookupError):
        return False
    return True
