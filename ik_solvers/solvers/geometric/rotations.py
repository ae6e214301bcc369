"""Rotations as tuples of columns (floats or numpy columns): products, and turns about joint axes.

Built on the :class:`~ik_solvers.solvers.geometric.vectors.Ops` helpers, which skip constant 0 and ±1 factors
for columns. Joint axes of robots are mostly coordinate axes; :class:`JointAxis` then turns a matrix
by mixing two of its columns (a handful of products instead of a full 3x3 product), and
:func:`bilinear` reads u·R w straight off R. Other axes take the general path, with the same results.
"""

from __future__ import annotations

from collections.abc import Callable

from ik_solvers.solvers.geometric.vectors import Ops


def matmul(first: tuple, second: tuple, ops: Ops) -> tuple:
    """Columns of first · second."""
    return tuple(ops.matvec(first, column) for column in second)


def coordinate(vector: tuple) -> tuple[int, float] | None:
    """(k, ±1) when ``vector`` is ±e_k exactly, else None."""
    nonzero = [i for i, x in enumerate(vector) if x != 0.0]
    if len(nonzero) == 1 and abs(vector[nonzero[0]]) == 1.0:
        return nonzero[0], float(vector[nonzero[0]])
    return None


def bilinear(u: tuple, w: tuple) -> Callable[[tuple, Ops], object]:
    """The function R, ops ↦ u · R w for constant unit vectors u, w (R given by its columns)."""
    first, second = coordinate(u), coordinate(w)
    if first is None or second is None:
        return lambda rotation, ops: ops.dot(u, ops.matvec(rotation, w))
    row, column = first[0], second[0]
    if first[1] * second[1] > 0.0:
        return lambda rotation, ops: rotation[column][row]
    return lambda rotation, ops: -rotation[column][row]


class JointAxis:
    """A constant unit joint axis (3 floats) and products with rotations about it."""

    def __init__(self, vector) -> None:
        self.vector = tuple(float(x) for x in vector)
        self.coordinate = coordinate(self.vector)

    def matrix(self, c, s, ops: Ops) -> tuple:
        """Columns of Rot(axis, q) for c = cos q, s = sin q."""
        if self.coordinate is None:
            basis = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
            return tuple(ops.rotate(self.vector, c, s, e) for e in basis)
        return self.times(((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)), c, s, ops)

    def times(self, columns: tuple, c, s, ops: Ops) -> tuple:
        """Columns of M · Rot(axis, q) for M given by its columns."""
        if self.coordinate is None:
            return matmul(columns, self.matrix(c, s, ops), ops)
        k, sign = self.coordinate
        s = s if sign > 0.0 else -s
        first, second = (k + 1) % 3, (k + 2) % 3
        turned = list(columns)
        turned[first] = ops.combine(columns[first], c, columns[second], s)
        turned[second] = ops.combine(columns[second], c, columns[first], -s)
        return tuple(turned)
