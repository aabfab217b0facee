"""Longest common subsequence length, shared by DDW's duplicate degree and the extraction score."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

__all__ = ["lcs_length"]


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of two sequences (strings or code lists).

    Bit-parallel (Hyyrö 2004; Crochemore et al. 2001): bit i of the row is 0 where the LCS row
    steps at b[i]; one big-int update per item of the longer sequence, masks over the shorter.
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[Hashable, int] = {}
    for i, item in enumerate(b):
        masks[item] = masks.get(item, 0) | (1 << i)
    full = (1 << len(b)) - 1
    row = full
    for item in a:
        matched = row & masks.get(item, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(b) - row.bit_count()
