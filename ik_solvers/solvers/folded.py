"""Products of 3-vectors and 3x3 rotations that skip the terms a zero or unit constant makes trivial.

Values are Python floats or numpy columns (one entry per target, see :mod:`ik_solvers.solvers.vectors`);
:func:`products` gives the set of functions to use for either.
Robot axes are often along x, y or z, so many entries of the constant vectors and rotation tables are
exactly 0 or ±1; skipping those products saves most of the work of a batch, where every operation
runs over a whole column, and gives the same values. Matrices are tuples of columns.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ik_solvers.solvers.vectors import SCALAR, Ops, dot, matvec, tmatvec


def fmul(x, y):
    """x * y, without work when either is a float 0 or ±1."""
    if x.__class__ is float:
        if x == 0.0:
            return 0.0
        if x == 1.0:
            return y
        if x == -1.0:
            return -y
    if y.__class__ is float:
        if y == 0.0:
            return 0.0
        if y == 1.0:
            return x
        if y == -1.0:
            return -x
    return x * y


def fadd(x, y):
    """x + y, without work when either is a float 0."""
    if x.__class__ is float and x == 0.0:
        return y
    if y.__class__ is float and y == 0.0:
        return x
    return x + y


def fdot(u, v):
    """u · v."""
    return fadd(fadd(fmul(u[0], v[0]), fmul(u[1], v[1])), fmul(u[2], v[2]))


def fmatvec(columns, v):
    """M v for M given by its columns."""
    return tuple(fdot((columns[0][i], columns[1][i], columns[2][i]), v) for i in range(3))


def ftmatvec(columns, v):
    """Mᵀ v for M given by its columns."""
    return (fdot(columns[0], v), fdot(columns[1], v), fdot(columns[2], v))


def fmatmul(first, second):
    """Columns of first · second."""
    return tuple(fmatvec(first, column) for column in second)


def rotation_table(axis) -> tuple:
    """Constants (W, I - W, K) per entry of Rot(axis, q) = W + cos q (I - W) + sin q K, W = a aᵀ, K = [a]×."""
    a = np.asarray(axis, dtype=float)
    outer = np.outer(a, a)
    skew = np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])
    rest = np.eye(3) - outer
    return tuple(
        tuple((float(outer[i, j]), float(rest[i, j]), float(skew[i, j])) for i in range(3)) for j in range(3)
    )


def axis_rotation(table: tuple, c, s) -> tuple:
    """Columns of Rot(axis, q) from :func:`rotation_table` and c = cos q, s = sin q."""
    return tuple(tuple(fadd(fadd(w, fmul(r, c)), fmul(k, s)) for w, r, k in column) for column in table)


def _matmul(first, second):
    return tuple(matvec(first, column) for column in second)


def _rotation(table: tuple, c, s) -> tuple:
    return tuple(tuple(w + r * c + k * s for w, r, k in column) for column in table)


FOLDED = SimpleNamespace(dot=fdot, matvec=fmatvec, tmatvec=ftmatvec, matmul=fmatmul, rotation=axis_rotation)
PLAIN = SimpleNamespace(dot=dot, matvec=matvec, tmatvec=tmatvec, matmul=_matmul, rotation=_rotation)


def products(ops: Ops) -> SimpleNamespace:
    """The product functions for ``ops``: plain arithmetic for floats, folded for columns.

    Folding costs a few type checks per product, which pays off only when each product is a whole
    column; for one target plain arithmetic is faster.
    """
    return PLAIN if ops is SCALAR else FOLDED
