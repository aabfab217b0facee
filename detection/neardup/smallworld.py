"""The concept co-occurrence graph of DWDCS and its hub contributions.

Nodes are concepts occurring at least ``min_freq`` times; an edge joins two concepts that occur
within ``window`` positions of each other (seed: distance ≤ 2) in the sequence of those
concepts.  Only the main (largest) connected component is kept.  A node's contribution is

    CB_i = L(G − i) − L(G)

with L the average shortest-path length over ordered pairs of distinct nodes.  Removing a hub of
a small-world graph lengthens paths, so a large CB_i marks a key concept.  The seed does not say
how to count pairs that removal disconnects; here they count as distance ``n`` (the node count,
longer than any real path) so cutting the graph weighs more than stretching it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

__all__ = ["cooccurrence_graph", "main_component", "average_path_length", "hub_contributions"]


def cooccurrence_graph(
    concepts: Sequence[str], *, min_freq: int, window: int, max_nodes: int, min_nodes: int = 0
) -> tuple[list[str], np.ndarray]:
    """Nodes (most frequent first, at most ``max_nodes``) and their boolean adjacency matrix.

    ``max_nodes`` bounds the cost of the path computations on long documents; the dropped
    concepts are the rarest, which have the fewest edges anyway.
    """
    freq = Counter(concepts)
    ranked = [c for c, n in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0])) if n >= min_freq]
    if len(ranked) < min_nodes:
        # A short text repeats few concepts: rather than a graph too small to have hubs, take
        # every concept (the seed's frequency threshold is meant to drop noise in long pages).
        ranked = [c for c, _ in sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))]
    nodes = ranked[:max_nodes]
    position = {c: i for i, c in enumerate(nodes)}
    kept = [position[c] for c in concepts if c in position]
    adj = np.zeros((len(nodes), len(nodes)), dtype=bool)
    for offset in range(1, window + 1):
        a, b = np.array(kept[:-offset], dtype=int), np.array(kept[offset:], dtype=int)
        adj[a, b] = True
        adj[b, a] = True
    np.fill_diagonal(adj, False)
    return nodes, adj


def main_component(adj: np.ndarray) -> list[int]:
    """Indices of the largest connected component (ties: the one with the smallest index)."""
    seen = np.zeros(len(adj), dtype=bool)
    best: list[int] = []
    for start in range(len(adj)):
        if seen[start]:
            continue
        comp, frontier = [start], [start]
        seen[start] = True
        while frontier:
            nxt = [int(j) for i in frontier for j in np.flatnonzero(adj[i] & ~seen)]
            nxt = sorted(set(nxt))
            seen[nxt] = True
            comp.extend(nxt)
            frontier = nxt
        if len(comp) > len(best):
            best = sorted(comp)
    return best


def average_path_length(adj: np.ndarray) -> float:
    """Mean BFS distance over ordered pairs of distinct nodes (unreachable pairs count n)."""
    n = len(adj)
    if n < 2:
        return 0.0
    steps = adj.astype(np.float32)  # float: BLAS matmul (integer matmul is not)
    reached = np.eye(n, dtype=bool)
    frontier = np.eye(n, dtype=np.float32)
    total = 0
    for step in range(1, n):
        new = ((frontier @ steps) > 0) & ~reached
        count = int(new.sum())
        if not count:
            break
        total += step * count
        reached |= new
        frontier = new.astype(np.float32)
    unreachable = n * n - int(reached.sum())
    return (total + unreachable * n) / (n * (n - 1))


def hub_contributions(adj: np.ndarray, candidates: Sequence[int]) -> dict[int, float]:
    """CB_i for every node index in ``candidates`` (DWDCS: the top-l by degree)."""
    base = average_path_length(adj)
    result = {}
    for i in candidates:
        keep = np.array([j for j in range(len(adj)) if j != i], dtype=int)
        result[i] = average_path_length(adj[np.ix_(keep, keep)]) - base
    return result
