"""The stored form of fitted methods and signatures (detection.neardup.encoding): every method
reads back to one that signs and relates as the original, and what is not a known format and
version is refused."""

from __future__ import annotations

import json

import pytest

from detection.neardup import METHODS, DWDCSConfig, signature_version
from detection.neardup.dwdcs import DWDCS
from detection.neardup.encoding import (
    EncodingError,
    method_decode,
    method_encode,
    signature_decode,
    signature_encode,
)


def fitted(name: str, texts: dict[int, str]):  # type: ignore[no-untyped-def]
    # dwdcs without WordNet: the English concepts are the words (no data needed).
    method = DWDCS(DWDCSConfig(use_wordnet=False)) if name == "dwdcs" else METHODS[name]()
    method.fit(texts.values())
    return method


@pytest.mark.parametrize("name", sorted(METHODS))
def test_a_fitted_method_reads_back_signing_and_relating_as_before(name, collection):
    method = fitted(name, collection)
    stored = method_encode(method)
    back = method_decode(stored)

    assert json.loads(stored)["format"] == "copydetect.neardup-method"
    assert type(back) is type(method) and back.config == method.config
    assert signature_version(back) == signature_version(method)
    sigs = {doc: method.signature(text) for doc, text in collection.items()}
    assert {doc: back.signature(text) for doc, text in collection.items()} == sigs
    relations = {(a, b): method.relation(sigs[a], sigs[b]) for a in sigs for b in sigs}
    assert len(set(relations.values())) > 1  # not all alike: the comparison below tells
    read = {doc: signature_decode(name, signature_encode(name, sig)) for doc, sig in sigs.items()}
    assert read == sigs
    assert {(a, b): back.relation(read[a], read[b]) for a in read for b in read} == relations


def test_a_signature_of_no_features_and_a_missing_one_read_back():
    assert signature_decode("simhash", signature_encode("simhash", None)) is None
    empty = METHODS["periods"]().signature("")
    assert signature_decode("periods", signature_encode("periods", empty)) == empty


def _with(data: bytes, **changes: object) -> bytes:
    return json.dumps({**json.loads(data), **changes}).encode()


def test_an_unknown_version_is_refused_with_the_version_it_found(collection):
    newer = _with(method_encode(fitted("periods", collection)), version=2)
    with pytest.raises(EncodingError, match="version 2 is unknown .* reads version 1"):
        method_decode(newer)
    with pytest.raises(EncodingError, match="version 2 is unknown"):
        signature_decode("simhash", _with(signature_encode("simhash", 5), version=2))


def test_other_bytes_and_another_methods_signature_are_refused():
    with pytest.raises(EncodingError, match="no JSON object"):
        signature_decode("simhash", b"\x80\x05K\x05.")  # a pickle of 5
    with pytest.raises(EncodingError, match="expected format"):
        method_decode(signature_encode("simhash", 5))
    with pytest.raises(EncodingError, match="not of 'imatch'"):
        signature_decode("imatch", signature_encode("simhash", 5))
