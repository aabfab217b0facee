"""Give the memory of large strings back to the system as soon as they are freed.

glibc's malloc serves a request of at least its mmap threshold (128 KB) with a mapping of its
own, returned to the system when freed, but raises the threshold to the size of every such
block freed, up to 32 MB: after the first large document, the copies of a text that decoding,
tidying and analysis make (tens of MB each) come from the heap, whose freed memory stays in
the process. A worker child then kept its peak of one document for the next ones. A fixed
threshold keeps large blocks in their own mappings; `trim` returns what the heap holds free.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

logger = logging.getLogger(__name__)

_M_MMAP_THRESHOLD = -3  # mallopt's parameter number (malloc.h)
MMAP_THRESHOLD_BYTES = 256 * 1024


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "mallopt") else None


def large_blocks_mapped() -> None:
    """Fix glibc's mmap threshold (no effect on another C library)."""
    libc = _libc()
    if libc is None or not libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES):
        logger.info("malloc's mmap threshold could not be set; large documents may keep memory")


def trim() -> None:
    """Return the heap's free memory to the system (glibc only)."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)
