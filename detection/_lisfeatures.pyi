"""Types of the C extension built from detection/_lisfeatures.c (see that file)."""

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from types import NotImplementedType

import numpy as np

class Table:
    """word → id of a vocabulary's native path, for lookups and adds of whole word lists."""

    def __init__(self) -> None: ...
    def __len__(self) -> int: ...
    def add(self, words: Sequence[str], first: int, /) -> None: ...
    def add_new(
        self,
        words: Sequence[str],
        ids: np.ndarray,
        first: int,
        hashes: np.ndarray,
        flags: np.ndarray,
        key: bytes,
        skip: AbstractSet[str],
        antecedents: AbstractSet[str],
        /,
    ) -> int: ...
    def lookup(self, words: Sequence[str], out: np.ndarray, /) -> int: ...

def word_hash(word: str, key: bytes, /) -> int: ...
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
def han_runs(pieces: list[tuple[str, str]], /) -> str: ...
def han_words(
    pieces: list[tuple[str, str]], tokens: list[str], /
) -> tuple[list[str], list[tuple[int, int]], list[int]]: ...
def ascii_words(
    text: str, spans: Sequence[tuple[int, int]], /
) -> tuple[list[str], list[tuple[int, int]], list[int]] | None | NotImplementedType: ...
