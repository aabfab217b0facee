"""Byte → str decoding with the encoding detected, never assumed, and newlines normalised.

Order of evidence, strongest first: a byte-order mark; UTF-16 written without one (its NUL bytes,
or its hanzi); an encoding declared by the caller (an HTML <meta charset>) when the bytes really
decode with it; strict UTF-8 (multi-byte UTF-8 almost never decodes by accident); UTF-8 with a
few invalid bytes (read with U+FFFD for them, and a warning); then charset-normalizer's statistical
guess, corrected for short Chinese and for Windows-1252 texts.
GB2312/GBK labels are decoded as GB18030, their superset, because pages labelled gb2312 routinely
contain GBK-only characters.
"""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes
from charset_normalizer.utils import is_multi_byte_encoding

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
    "iso8859-1": "cp1252",  # what codecs calls latin-1/iso-8859-1; pages so labelled use cp1252
}
_SAMPLE_BYTES = 64 * 1024
# Bytes that are punctuation in every Windows code page (€ … ‘ ’ “ ” • – —) and letters or box
# drawing in the DOS, ISO and KOI8 code pages that charset-normalizer may prefer on a short text.
_WINDOWS_PUNCTUATION = frozenset(b"\x80\x85\x91\x92\x93\x94\x95\x96\x97")
_WINDOWS_CODE_PAGES = frozenset(f"cp{number}" for number in range(1250, 1259))
# Those punctuation marks but "’" (an apostrophe inside a word is normal) between two letters:
# a DOS code page's letter misread as cp1252 ("kůň" in cp852 reads "k…ň").
_MARK_IN_WORD = re.compile(r"(?<=[^\W\d_])[€…‘“”•–—](?=[^\W\d_])")
_UTF16 = ("utf-16-le", "utf-16-be")
# UTF-16 without NULs (Chinese) is believed from 6 characters on: about 1 in 10 Big5 characters
# read as UTF-16 is a common hanzi too (從, B1 71, reads 熱), 1 in a million for 6 in a row.
_MIN_UTF16_BYTES = 12
# Share of a UTF-16 decoding that must be ordinary text (see _plausible_share) to believe it.
_MIN_UTF16_PLAUSIBLE = 0.9
# Damaged UTF-8 (see _damaged_utf8) has at least this many valid multi-byte characters for
# each invalid sequence.
_UTF8_VALID_PER_INVALID = 2
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
    # A few stray NULs (a broken converter, a bad paste) pass the binary check; they carry no
    # text, and PostgreSQL cannot store them in a text column.
    if nuls := text.count("\x00"):
        text = text.replace("\x00", "")
        warnings.append(f"{nuls} NUL byte(s) (binary junk, not text) were removed")
    return normalise_newlines(text.removeprefix("\ufeff")), name, tuple(warnings)


def utf16_without_bom(data: bytes) -> str | None:
    """The codec of UTF-16 text written without a byte-order mark (LE or BE), else None.

    Mostly Latin text (English, digits, markup) is unmistakable: every other byte is NUL, the high
    byte of U+0000-U+00FF. Chinese text has no such NULs; its UTF-16 decoding is mostly frequently
    used hanzi, which GBK, Big5 or binary data read as UTF-16 almost never is (they give Hangul,
    private use characters, surrogates and rare hanzi). Without NULs, valid UTF-8 is never taken
    for UTF-16 (pairs of ASCII letters read as UTF-16 are CJK characters: "Bush hid the facts"),
    nor is anything under 6 characters (one Big5 character in 10 reads as a common hanzi).
    Not recognised without a BOM: UTF-16 Japanese, Korean, Cyrillic and the like.
    """
    sample = data[:_SAMPLE_BYTES]
    sample = sample[: len(sample) - len(sample) % 2]
    if b"\x00" not in sample and (len(sample) < _MIN_UTF16_BYTES or _decodes(data, "utf-8")):
        return None
    # On a tie ("\x00e\x00d" reads as "ed" or as the hanzi "攀搀") the NULs are the high bytes.
    names = _UTF16 if sample[1::2].count(0) >= sample[::2].count(0) else _UTF16[::-1]
    shares = {name: _plausible_share(sample.decode(name, errors="replace")) for name in names}
    name = max(shares, key=lambda name: shares[name])
    return name if shares[name] >= _MIN_UTF16_PLAUSIBLE else None


def _plausible_share(text: str) -> float:
    """Share of non-space characters that ordinary Latin or Chinese text is made of.

    Printable ASCII and Latin-1, general punctuation (curly quotes, dashes), CJK punctuation,
    full-width forms and frequently used hanzi; not U+FFFD or anything else. 0 when more than
    1 in 1000 characters are control characters: binary data read as UTF-16 has them here and
    there (a run of padding can otherwise read as one repeated hanzi), text has none.
    """
    chars = [c for c in text if not c.isspace()]
    controls = sum(1 for c in text if c < " " and c not in "\t\n\v\f\r")
    if not chars or controls * 1000 > len(text):
        return 0.0
    return sum(1 for c in chars if _is_plausible(c)) / len(chars)


def _is_plausible(char: str) -> bool:
    # The cheap range tests first: _is_common_hanzi encodes the character.
    return (
        " " <= char <= "~"
        or "\u00a1" <= char <= "\u00ff"
        or "\u2010" <= char <= "\u2027"
        or "\u3000" <= char <= "\u303f"
        or "\uff01" <= char <= "\uff5e"
        or _is_common_hanzi(char)
    )


def _detect(data: bytes, declared: str | None) -> str:
    if unmistakable := bom_encoding(data) or utf16_without_bom(data):
        return unmistakable
    name = canonical(declared) if declared else None
    if name and _decodes(data, name):
        return name
    if _decodes(data, "utf-8") or _utf8_cut(data) < len(data):
        return "utf-8"
    if name and _mostly_decodes(data, name):
        return name
    if _damaged_utf8(data):
        return "utf-8"
    return _statistical_guess(data)


def _damaged_utf8(data: bytes) -> bool:
    """UTF-8 with a few invalid bytes: at least `_UTF8_VALID_PER_INVALID` valid multi-byte
    characters for each invalid sequence. Text in another encoding read as UTF-8 gives more
    invalid sequences than valid ones (GBK, Big5: about 3 to 1), so this never takes it for UTF-8;
    the statistical guess would read damaged UTF-8 Chinese as nothing at all, and damaged
    UTF-8 English with curly quotes as a Mac code page."""
    text = data.decode("utf-8", errors="replace")
    invalid = text.count("\ufffd") - data.count("\ufffd".encode())
    non_ascii = len(text) - len(text.encode("ascii", errors="ignore"))
    valid = non_ascii - text.count("\ufffd")
    return 0 < invalid and valid >= _UTF8_VALID_PER_INVALID * invalid


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
    decoding yields rare characters). Before that, a DOS or other uncommon single-byte guess for
    text with Windows curly quotes and dashes becomes cp1252 (_prefer_cp1252).
    """
    best = from_bytes(data).best()
    guess = canonical(best.encoding) if best is not None else None
    if guess and _prefer_cp1252(data, guess):
        guess = "cp1252"
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


def _prefer_cp1252(data: bytes, guess: str) -> bool:
    """Whether a text guessed to be in another single-byte code page is really Windows-1252.

    charset-normalizer reads the short "He said “hello” – it’s fine… €5." as cp852 ("ôhelloö ľ
    itĺs fineů Ç5.") and longer English with curly quotes as cp775 or mac-latin2: its statistics
    see letters, not quotes. Curly quotes, dashes, "…" and "€" sit at 0x80-0x97 in every Windows
    code page, and Windows-1252 is by far the most common of them. A DOS-style guess is kept when
    the cp1252 reading puts those marks inside words, where a DOS code page has its letters.
    """
    multi_byte = guess.startswith("utf") or is_multi_byte_encoding(guess)
    if multi_byte or guess == "cp1252" or not _decodes(data, "cp1252"):
        return False  # multi-byte guesses (a short GBK text read as cp949) go to the hanzi test
    text = data.decode("cp1252")
    if guess in _WINDOWS_CODE_PAGES:
        # Its letters are kept (Polish cp1250, Russian cp1251), but a text it reads exactly as
        # cp1252 does (English or German read as cp1250) is named after the common code page.
        return data.decode(guess, errors="replace") == text
    if _WINDOWS_PUNCTUATION.isdisjoint(data):
        return False
    marks = sum(text.count(mark) for mark in "€…‘“”•–—")
    return len(_MARK_IN_WORD.findall(text)) * 4 <= marks


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
