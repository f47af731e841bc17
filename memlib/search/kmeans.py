"""Partitioning of unit vectors by spherical k-means, for the vector cache above
`vector_cache.IVF_ABOVE` rows: each partition is laid out contiguously and a query scans the
partitions nearest to it, in the vectors' principal components as 8-bit codes (`principal`,
`projected`, `query_code`)."""

from __future__ import annotations

import numpy as np

ROWS_PER_PARTITION = 1_000
COARSE = 32               # first level of the two-level k-means
CODE_MAX = 127            # the widest value of an 8-bit code


def _kmeans(points: np.ndarray, k: int, rng: np.random.Generator, iterations: int = 16) -> np.ndarray:
    """Spherical k-means (cosine) on unit vectors; returns unit centroids."""
    k = max(1, min(k, len(points)))
    centroids = points[rng.choice(len(points), k, replace=False)].copy()
    for _ in range(iterations):
        assign = np.argmax(points @ centroids.T, axis=1)
        sums = np.zeros_like(centroids)
        _add_rows(sums, assign, points)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        empty = norms[:, 0] == 0
        centroids = np.where(empty[:, None], centroids, sums / np.where(norms == 0, 1.0, norms))
    return centroids.astype(np.float32)


def _add_rows(sums: np.ndarray, assign: np.ndarray, points: np.ndarray) -> None:
    """sums[c] += every point assigned to c (a sort and one reduceat; np.add.at is slow)."""
    order = np.argsort(assign, kind="stable")
    starts = np.searchsorted(assign[order], np.arange(len(sums)))
    nonempty = np.flatnonzero(np.diff(np.append(starts, len(order))) > 0)
    sums[nonempty] = np.add.reduceat(points[order], starts[nonempty], axis=0)


def _assign(points: np.ndarray, centroids: np.ndarray, chunk: int = 65_536) -> np.ndarray:
    out = np.empty(len(points), np.int32)
    for start in range(0, len(points), chunk):
        out[start:start + chunk] = np.argmax(points[start:start + chunk] @ centroids.T, axis=1)
    return out


def partition(matrix: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two-level k-means: COARSE clusters, each split in proportion to its size, so about
    len/ROWS_PER_PARTITION partitions in all; assigning 1M rows costs two small products
    instead of one against a thousand centroids. Returns the row order that makes each
    partition contiguous, the centroids and the partitions' offsets."""
    rng = np.random.default_rng(seed)
    n = len(matrix)
    sample = matrix[rng.choice(n, min(n, 20_000), replace=False)]
    total = max(1, n // ROWS_PER_PARTITION)
    levels = min(COARSE, total)  # a group of a few thousand rows needs one level
    coarse = _assign(matrix, _kmeans(sample, levels, rng))
    centroids, labels = [], np.empty(n, np.int32)
    for c in range(levels):
        members = np.flatnonzero(coarse == c)
        if len(members) == 0:
            continue
        k = max(1, round(total * len(members) / n))
        points = matrix[members]
        train = points[rng.choice(len(points), min(len(points), 40 * k), replace=False)]
        fine = _kmeans(train, k, rng)
        labels[members] = _assign(points, fine) + len(centroids)
        centroids.extend(fine)
    order = np.argsort(labels, kind="stable")
    offsets = np.searchsorted(labels[order], np.arange(len(centroids) + 1))
    return order, np.asarray(centroids, np.float32), offsets


def principal(matrix: np.ndarray, dims: int, seed: int,
              sample: int = 20_000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mean and the `dims` leading principal directions (rows of unit length) of a sample
    of the rows: (x - mean) @ basis.T keeps the part of x that tells rows apart. Also the step
    of each direction's 8-bit code (`projected`): the sample's widest value there is 127 steps."""
    rng = np.random.default_rng(seed)
    rows = matrix[rng.choice(len(matrix), min(len(matrix), sample), replace=False)]
    mean = rows.mean(axis=0)
    _, _, directions = np.linalg.svd(rows - mean, full_matrices=False)
    basis = np.ascontiguousarray(directions[:dims], np.float32)
    spread = np.abs((rows - mean) @ basis.T).max(axis=0)
    step = np.where(spread > 0, spread / CODE_MAX, 1.0)
    return mean.astype(np.float32), basis, step.astype(np.float32)


def projected(matrix: np.ndarray, rows: np.ndarray, mean: np.ndarray, basis: np.ndarray,
              step: np.ndarray, chunk: int = 65_536) -> np.ndarray:
    """The given rows of `matrix`, in that order, in the coordinates of `basis` as 8-bit codes:
    round((x - mean) @ basis.T / step), clipped to +-CODE_MAX (a chunk at a time: no full-size
    temporary)."""
    out = np.empty((len(rows), len(basis)), np.int8)
    for start in range(0, len(rows), chunk):
        coords = (matrix[rows[start:start + chunk]] - mean) @ basis.T / step
        out[start:start + chunk] = np.clip(np.rint(coords, out=coords), -CODE_MAX, CODE_MAX, out=coords)
    return out


def query_code(weights: np.ndarray) -> np.ndarray:
    """A query's weights as one row of 8-bit codes, its widest weight CODE_MAX: the codes' dot
    products with `projected` rows rank them as the weights would, to the codes' precision."""
    widest = float(np.abs(weights).max())
    scaled = weights * (CODE_MAX / widest) if widest > 0 else weights
    return np.rint(scaled).astype(np.int8)[None, :]
