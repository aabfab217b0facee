"""PostgreSQL's hash partitioning of a bigint key, computed in the client with numpy.

`documents_posting` is `PARTITION BY HASH (feature)` with `MODULUS n REMAINDER r` partitions.
The lookup sends each partition only the features hashed to it; computing that routing in the
client instead of with `satisfies_hash_partition()` in the statement saves one function call
per feature and partition (8 × ~1,000 per 10,000-character query) and lets each partition's
feature list travel as its own parameter.

The function is PostgreSQL's own (src/backend/partitioning/partbounds.c,
`compute_partition_hash_value`): the bigint's extended hash `hashint8extended(value,
HASH_PARTITION_SEED)` (src/backend/access/hash/hashfunc.c: fold to 32 bits, then Bob Jenkins'
lookup3 `hash_uint32_extended`, src/common/hashfn.c), combined into 0 with `hash_combine64`,
modulo the partition count. `tests/documents/test_pg_partition.py` checks it against the
server's `satisfies_hash_partition` on the real table.
"""

from __future__ import annotations

import numpy as np

HASH_PARTITION_SEED = 0x7A5B22367996DCFD
_COMBINE = np.uint64(0x49A0F4DD15E5A8E3)
_GOLDEN = 0x9E3779B9 + 4 + 3923095  # lookup3's initial value for a 4-byte key


_M32 = 0xFFFFFFFF


def _rot_int(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _M32


def _seeded_state(seed: int) -> tuple[int, int, int]:
    """lookup3's (a, b, c) after mixing in the seed: the same for every key, so computed once
    (in Python ints, wrapped to 32 bits) instead of per array element."""
    a = b = c = _GOLDEN & _M32
    if not seed:
        return a, b, c
    a = (a + (seed >> 32)) & _M32
    b = (b + (seed & _M32)) & _M32
    for ra, rb, rc in ((4, 6, 8), (16, 19, 4)):  # mix(): two rounds of three steps
        a = ((a - c) & _M32) ^ _rot_int(c, ra)
        c = (c + b) & _M32
        b = ((b - a) & _M32) ^ _rot_int(a, rb)
        a = (a + c) & _M32
        c = ((c - b) & _M32) ^ _rot_int(b, rc)
        b = (b + a) & _M32
    return a, b, c


_STATE = _seeded_state(HASH_PARTITION_SEED)


def hash_int8_extended(values: np.ndarray, seed: int = HASH_PARTITION_SEED) -> np.ndarray:
    """`hashint8extended(value, seed)` for an int64 array, as uint64 (in place on three
    uint32 arrays: ~2x faster than a new array per operation, for the ~1,000 features of a
    lookup)."""
    values = np.asarray(values, dtype=np.int64)
    unsigned = values.view(np.uint64)
    high = (unsigned >> np.uint64(32)).astype(np.uint32)
    np.invert(high, out=high, where=values < 0)
    a = unsigned.astype(np.uint32)  # the low 32 bits, folded with the high ones: the key
    a ^= high
    a0, b0, c0 = _STATE if seed == HASH_PARTITION_SEED else _seeded_state(seed)
    t, u = high, np.empty_like(a)  # scratch
    # final(a, b, c). Its first step reads only b and c, the same for every key.
    c1 = ((c0 ^ b0) - _rot_int(b0, 14)) & _M32
    a += np.uint32(a0)
    a ^= np.uint32(c1)
    a -= np.uint32(_rot_int(c1, 11))
    b = a ^ np.uint32(b0)
    b -= _rotated(a, 25, t, u)
    c = b ^ np.uint32(c1)
    c -= _rotated(b, 16, t, u)
    _step(a, c, 4, t, u)
    _step(b, a, 14, t, u)
    _step(c, b, 24, t, u)
    out = b.astype(np.uint64)
    out <<= np.uint64(32)
    out |= c
    return out


def _rotated(y: np.ndarray, k: int, t: np.ndarray, u: np.ndarray) -> np.ndarray:
    """lookup3's rot(y, k) into the scratch array `t`."""
    np.left_shift(y, np.uint32(k), out=t)
    np.right_shift(y, np.uint32(32 - k), out=u)
    t |= u
    return t


def _step(x: np.ndarray, y: np.ndarray, k: int, t: np.ndarray, u: np.ndarray) -> None:
    """One step of lookup3's final(): x = (x ^ y) - rot(y, k), in place."""
    x ^= y
    x -= _rotated(y, k, t, u)


def partition_of(values: np.ndarray, modulus: int) -> np.ndarray:
    """The REMAINDER of the hash partition (of `modulus`) each bigint key belongs to."""
    row_hash = hash_int8_extended(values)
    row_hash += _COMBINE  # hash_combine64(0, hash); an array's uint64 sum wraps silently
    if modulus & (modulus - 1):
        row_hash %= np.uint64(modulus)
    else:  # a power of two, as the posting table's 8
        row_hash &= np.uint64(modulus - 1)
    return row_hash.view(np.int64)  # each below modulus: the same value signed
