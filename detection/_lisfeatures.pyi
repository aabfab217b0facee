"""Types of the C extension built from detection/_lisfeatures.c (see that file)."""

from collections.abc import Sequence

import numpy as np

class Table:
    """word → id, mirrored from a vocabulary's dict for lookups of whole word lists."""

    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def add(self, words: Sequence[str], first: int, /) -> None: ...
    def lookup(self, words: Sequence[str], out: np.ndarray, /) -> int: ...

def features(
    ids: np.ndarray,
    bounds: Sequence[tuple[int, int]],
    hashes: np.ndarray,
    flags: np.ndarray,
    multipliers: Sequence[int],
    chain_length: int,
    han_chain_length: int,
    chain_gap: int,
    /,
) -> list[tuple[int, ...]]: ...
