from hypothesis import given, settings
from hypothesis import strategies as st

from detection.neardup.bands import BandIndex, hamming

U64 = st.integers(min_value=0, max_value=(1 << 64) - 1)


def flip(value: int, bits: list[int]) -> int:
    for bit in bits:
        value ^= 1 << bit
    return value


def test_hamming_counts_differing_bits():
    assert hamming(0b1011, 0b0001) == 2
    assert hamming((1 << 64) - 1, 0) == 64


@settings(max_examples=200, deadline=None)
@given(
    query=U64,
    flips=st.lists(st.lists(st.integers(0, 63), max_size=8, unique=True), min_size=1, max_size=20),
    others=st.lists(U64, max_size=20),
)
def test_it_finds_every_signature_within_three_bits_and_none_beyond(query, flips, others):
    index = BandIndex(bands=4)
    stored = [flip(query, bits) for bits in flips] + others
    for doc, sig in enumerate(stored):
        index.add(doc, sig)
    found = index.within(query, 3)
    expected = {doc for doc, sig in enumerate(stored) if hamming(sig, query) <= 3}
    assert found == expected


@settings(max_examples=100, deadline=None)
@given(query=U64, bits=st.lists(st.integers(0, 63), max_size=3, unique=True))
def test_any_signature_within_three_bits_shares_a_band(query, bits):
    index = BandIndex(bands=4)
    index.add(7, flip(query, bits))
    assert index.candidates(query) == {7}
