"""Sentence-level copy detection (Low-IDF-Sig, seed 003) and near-duplicate methods.

The public API is listed in ``__all__`` (see docs/architecture.md, "The detection contract").
"""
