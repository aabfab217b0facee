"""Damaged inputs of every kind end in an ExtractionError (or a result), never anything else."""

from __future__ import annotations

import random

import pytest

from extraction import (
    ArchiveMember,
    Extracted,
    ExtractionError,
    SkippedMember,
    extract,
    iter_archive,
)


def damaged_copies(data: bytes, *, seed: int, count: int = 25) -> list[bytes]:
    """Truncations and byte flips at seeded positions (deterministic, no timing)."""
    rng = random.Random(seed)
    copies = [data[: rng.randrange(1, len(data))] for _ in range(count)]
    for _ in range(count):
        damaged = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        copies.append(bytes(damaged))
    return copies


def outcome(name: str, data: bytes) -> Extracted | ExtractionError:
    try:
        return extract(name, data)
    except ExtractionError as error:
        assert str(error)  # a message the user can read
        return error


@pytest.fixture
def samples(make_docx, make_pdf) -> dict[str, bytes]:
    return {
        "a.txt": ("正文内容。" * 40).encode("gb18030"),
        "a.html": ("<html><body>" + "<p>段落文字内容足够长。</p>" * 20 + "</body></html>").encode(),
        "a.md": ("# 标题\n\n" + "段落。\n\n" * 20).encode(),
        "a.docx": make_docx(footnote="脚注"),
        "a.pdf": make_pdf([["第一页的文字内容。"], ["第二页。"]]),
    }


@pytest.mark.parametrize("name", ["a.txt", "a.html", "a.md", "a.docx", "a.pdf"])
def test_damaged_files_give_a_result_or_an_extraction_error(samples, name):
    for seed, data in enumerate(damaged_copies(samples[name], seed=len(name))):
        result = outcome(name, data)
        assert isinstance(result, Extracted | ExtractionError), seed


def test_damaged_zip_batches_give_members_skips_or_an_extraction_error(make_zip, samples):
    batch = make_zip({f"folder/{name}": data for name, data in samples.items()})
    for data in damaged_copies(batch, seed=7, count=100):
        try:
            items = list(iter_archive("batch.zip", data))
        except ExtractionError as error:
            assert str(error)
            continue
        assert all(isinstance(item, ArchiveMember | SkippedMember) for item in items)
