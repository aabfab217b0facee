"""Banded index for 64-bit signatures under Hamming distance (SimHash's sharded index).

Split the 64 bits into ``bands`` keys of ``64 // bands`` bits, one hash table per key.  Two
signatures within Hamming distance ``bands - 1`` differ in at most ``bands - 1`` keys, so by the
pigeonhole principle they share at least one key: a lookup in every table finds every
signature within that distance (SimHash: 4 × 16-bit keys for distance ≤ 3).
"""

from __future__ import annotations

from collections import defaultdict

from detection.neardup.base import NearDupError

__all__ = ["BandIndex", "hamming"]


def hamming(a: int, b: int) -> int:
    """Number of differing bits of two unsigned 64-bit integers."""
    return (a ^ b).bit_count()


class BandIndex:
    """Maps band keys of 64-bit signatures to document ids."""

    def __init__(self, bands: int = 4, bits: int = 64) -> None:
        if bits % bands:
            raise NearDupError(f"bits={bits} must be a multiple of bands={bands}")
        self._bands = bands
        self._width = bits // bands
        self._tables: list[defaultdict[int, set[int]]] = [defaultdict(set) for _ in range(bands)]
        self._sigs: dict[int, int] = {}

    def _keys(self, sig: int) -> list[int]:
        mask = (1 << self._width) - 1
        return [(sig >> (i * self._width)) & mask for i in range(self._bands)]

    def add(self, doc_id: int, sig: int) -> None:
        self._sigs[doc_id] = sig
        for table, key in zip(self._tables, self._keys(sig), strict=True):
            table[key].add(doc_id)

    def candidates(self, sig: int) -> set[int]:
        """Ids sharing a band key with ``sig`` (a superset of those within d ≤ bands - 1)."""
        found: set[int] = set()
        for table, key in zip(self._tables, self._keys(sig), strict=True):
            found |= table.get(key, set())
        return found

    def within(self, sig: int, distance: int) -> set[int]:
        """Ids whose signature is within Hamming ``distance`` (complete when distance < bands)."""
        if distance >= self._bands:
            raise NearDupError(f"distance {distance} needs more than {self._bands} bands")
        return {d for d in self.candidates(sig) if hamming(self._sigs[d], sig) <= distance}
