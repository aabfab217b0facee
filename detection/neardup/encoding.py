"""The stored form of a fitted near-duplicate method and of its signatures.

Each is one JSON object that names its format and version, so that what a store holds does not
depend on class or module names, and a reader meets an unknown version with a clear error
instead of misreading it.  Sets and arrays of 64-bit hashes are base64 of their little-endian
int64 (uint64 for MinHash) bytes: 11 bytes a hash where JSON numbers take about 21, and they
decode in one `numpy.frombuffer`.  A method keeps its config and what `fit` learned (template
lines, noise features); the rest (caches, WordNet) is rebuilt from the config.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import json
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from datasketch import MinHash

from detection.neardup import METHODS, signature_version
from detection.neardup.base import NearDupError, NearDupMethod
from detection.neardup.ddw import DDWSig
from detection.neardup.dwdcs import DWDCSSig, KeyConcept
from detection.neardup.periods import PeriodSig
from detection.neardup.shingling import ShingleSig
from detection.neardup.spotsigs import SpotSig

__all__ = [
    "METHOD_FORMAT",
    "SIGNATURE_FORMAT",
    "VERSION",
    "EncodingError",
    "method_decode",
    "method_encode",
    "signature_decode",
    "signature_encode",
]

METHOD_FORMAT = "copydetect.neardup-method"
SIGNATURE_FORMAT = "copydetect.neardup-signature"
VERSION = 1


class EncodingError(NearDupError):
    """Stored bytes that are not a method or signature of a format and version this code reads."""


def _hashes(values: Iterable[int], dtype: str = "<i8") -> str:
    return base64.b64encode(np.array(list(values), dtype=dtype).tobytes()).decode("ascii")


def _hashes_read(text: str, dtype: str = "<i8") -> list[int]:
    return np.frombuffer(base64.b64decode(text), dtype=dtype).tolist()


def _dump(format_name: str, method: str, body: dict[str, Any]) -> bytes:
    header = {"format": format_name, "version": VERSION, "method": method}
    return json.dumps({**header, **body}, ensure_ascii=False, separators=(",", ":")).encode()


def _load(format_name: str, data: bytes | memoryview) -> dict[str, Any]:
    try:
        stored = json.loads(bytes(data))
    except ValueError as error:
        raise EncodingError(f"not a stored {format_name} (no JSON object): {error}") from error
    if not isinstance(stored, dict) or stored.get("format") != format_name:
        found = stored.get("format") if isinstance(stored, dict) else type(stored).__name__
        raise EncodingError(f"expected format {format_name!r}, found {found!r}")
    if stored.get("version") != VERSION:
        raise EncodingError(
            f"{format_name} version {stored.get('version')!r} is unknown to this code (it reads"
            f" version {VERSION}); a newer release wrote it"
        )
    return stored


# --- signatures: one encoder and decoder per method name ------------------------------------

_SigCodec = tuple[Callable[[Any], dict[str, Any]], Callable[[dict[str, Any]], Any]]

_INT: _SigCodec = (lambda sig: {"value": sig}, lambda body: body["value"])


def _features(cls: type) -> _SigCodec:
    """The codec of a signature class whose one field is `features`, a set of hashes."""
    return (
        lambda sig: {"features": _hashes(sig.features)},
        lambda body: cls(frozenset(_hashes_read(body["features"]))),
    )


_SIGNATURES: dict[str, _SigCodec] = {
    "simhash": _INT,
    "imatch": _INT,
    "periods": _features(PeriodSig),
    "spotsigs": _features(SpotSig),
    "ddw": (
        lambda sig: {"codes": _hashes(sig.codes), "buckets": _hashes(sig.buckets)},
        lambda body: DDWSig(
            tuple(_hashes_read(body["codes"])), frozenset(_hashes_read(body["buckets"]))
        ),
    ),
    "dwdcs": (
        lambda sig: {"keys": [[k.concept, k.frequency, k.position] for k in sig.keys]},
        lambda body: DWDCSSig(tuple(KeyConcept(*key) for key in body["keys"])),
    ),
    "minhash": (
        lambda sig: {
            "size": sig.size,
            "scheme": sig.minhash.scheme,
            "seed": sig.minhash.seed,
            "hashvalues": _hashes(sig.minhash.hashvalues.tolist(), "<u8"),
        },
        lambda body: ShingleSig(_minhash(body), body["size"]),
    ),
}


@functools.cache
def _permutations(seed: int, num_perm: int, scheme: Any) -> Any:
    """A MinHash's permutations follow from its seed: drawn once, shared (never written)."""
    return MinHash(num_perm=num_perm, seed=seed, scheme=scheme).permutations


def _minhash(body: dict[str, Any]) -> MinHash:
    values = np.frombuffer(base64.b64decode(body["hashvalues"]), dtype="<u8").astype(np.uint64)
    return MinHash(
        seed=body["seed"],
        scheme=body["scheme"],
        hashvalues=values,
        permutations=_permutations(body["seed"], len(values), body["scheme"]),
    )


def _codec(method: str) -> _SigCodec:
    if method not in _SIGNATURES:
        raise EncodingError(f"no stored form for signatures of method {method!r}")
    return _SIGNATURES[method]


def signature_encode(method: str, sig: Any) -> bytes:
    """`sig`, made by the method named `method`, as stored bytes."""
    return _dump(SIGNATURE_FORMAT, method, _codec(method)[0](sig))


def signature_decode(method: str, data: bytes | memoryview) -> Any:
    """The signature `signature_encode(method, ...)` stored; EncodingError if `data` is not one
    (another format, an unknown version, another method's)."""
    body = _load(SIGNATURE_FORMAT, data)
    if body.get("method") != method:
        raise EncodingError(f"a signature of {body.get('method')!r}, not of {method!r}")
    return _codec(method)[1](body)


# --- fitted methods -------------------------------------------------------------------------


def method_encode(method: NearDupMethod[Any]) -> bytes:
    """The method's config and what its `fit` learned, as stored bytes."""
    body: dict[str, Any] = {
        "signature_version": signature_version(method),
        "config": dataclasses.asdict(method.config),
    }
    templates = getattr(method, "_templates", None)
    if templates is not None:
        body["template_lines"] = sorted(templates.template_lines)
    noise = getattr(method, "_noise", None)
    if noise is not None:
        body["noise"] = _hashes(noise)
    return _dump(METHOD_FORMAT, method.name, body)


def _config(default: Any, stored: dict[str, Any]) -> Any:
    """A config of `default`'s class with the `stored` values (nested configs likewise)."""
    values = {}
    for field in dataclasses.fields(default):
        value = stored[field.name]
        inner = getattr(default, field.name)
        values[field.name] = _config(inner, value) if dataclasses.is_dataclass(inner) else value
    return type(default)(**values)


def method_decode(data: bytes | memoryview) -> Any:
    """The fitted method `method_encode` stored: the method of that name (`METHODS`) with the
    stored config and fitted state; EncodingError if it would not sign as the stored one did."""
    body = _load(METHOD_FORMAT, data)
    name = body["method"]
    if name not in METHODS:
        raise EncodingError(f"no method named {name!r}")
    fresh: Any = METHODS[name]()
    method = type(fresh)(config=_config(fresh.config, body["config"]))
    if "template_lines" in body:
        method._templates._template = frozenset(body["template_lines"])
    if "noise" in body:
        method._noise = frozenset(_hashes_read(body["noise"]))
    if signature_version(method) != body["signature_version"]:
        raise EncodingError(f"the stored {name} config does not read back as it was written")
    return method
