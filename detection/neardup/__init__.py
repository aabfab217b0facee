"""Document-level near-duplicate detection: the seed methods and baselines behind one interface.

``METHODS`` maps a method name to a factory of a fresh method with its default config;
``cluster_documents(method, texts)`` deduplicates a collection; ``StreamingClusterer`` assigns
new documents incrementally.  See docs/neardup.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from detection.neardup.base import NearDupError, NearDupMethod, Relation
from detection.neardup.clustering import StreamingClusterer
from detection.neardup.collection import Cluster, Member, cluster_documents
from detection.neardup.ddw import DDW, DDWConfig
from detection.neardup.dwdcs import DWDCS, DWDCSConfig
from detection.neardup.hashing import hash_u64
from detection.neardup.imatch import IMatch, IMatchConfig
from detection.neardup.periods import PeriodConfig, PeriodFeatures
from detection.neardup.shingling import Shingling, ShinglingConfig
from detection.neardup.simhash import SimHash, SimHashConfig
from detection.neardup.spotsigs import SpotSigs, SpotSigsConfig
from detection.normalize import NORMALIZE_VERSION
from detection.words import WORDS_VERSION

__all__ = [
    "METHODS",
    "Cluster",
    "DDW",
    "DDWConfig",
    "DWDCS",
    "DWDCSConfig",
    "IMatch",
    "IMatchConfig",
    "Shingling",
    "ShinglingConfig",
    "SpotSigs",
    "SpotSigsConfig",
    "Member",
    "NearDupError",
    "NearDupMethod",
    "PeriodConfig",
    "PeriodFeatures",
    "Relation",
    "SimHash",
    "SimHashConfig",
    "StreamingClusterer",
    "cluster_documents",
    "signature_version",
]


def signature_version(method: NearDupMethod[Any]) -> str:
    """What made a method's signatures: its config (name, version and a digest of every
    threshold) and the shared text layer.  Store it with persisted signatures and never compare
    signatures whose versions differ."""
    digest = hash_u64(repr(method.config)) & 0xFFFFFFFF
    return f"{method.config.version}-{digest:08x}+{NORMALIZE_VERSION}+{WORDS_VERSION}"


METHODS: dict[str, Callable[[], NearDupMethod[Any]]] = {
    "simhash": SimHash,
    "periods": PeriodFeatures,
    "ddw": DDW,
    "dwdcs": DWDCS,
    "minhash": Shingling,
    "imatch": IMatch,
    "spotsigs": SpotSigs,
}
