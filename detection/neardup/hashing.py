"""Stable, seeded 64-bit hashing (never Python's ``hash()``, which changes per process)."""

from __future__ import annotations

import hashlib

__all__ = ["hash64", "hash_u64"]

_MASK64 = (1 << 64) - 1


def hash_u64(text: str, seed: int = 0) -> int:
    """Unsigned 64-bit blake2b hash of ``text`` salted with ``seed``."""
    digest = hashlib.blake2b(
        text.encode("utf-8"), digest_size=8, salt=seed.to_bytes(8, "little", signed=False)
    ).digest()
    return int.from_bytes(digest, "little")


def hash64(text: str, seed: int = 0) -> int:
    """Signed 64-bit form of :func:`hash_u64` (fits a PostgreSQL ``bigint``)."""
    value = hash_u64(text, seed)
    return value - (1 << 64) if value >= 1 << 63 else value
