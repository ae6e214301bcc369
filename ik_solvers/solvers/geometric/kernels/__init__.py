"""The closed forms compiled (numba): :mod:`.leg` (the biped leg, single and batch) on the 3-vector
arithmetic of :mod:`.vector3`, in the same order of operations as the Python float/column forms
they mirror. A solver calls :func:`prepare_kernels` once on construction: the kernels load from
numba's on-disk cache, or compile once (:mod:`ik_solvers.compiled.cache`).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from ik_solvers.compiled import cache


@functools.cache
def prepare_kernels() -> None:
    """Compile the closed forms' kernels, or load them from the cache, once per process."""
    cache.prepare(KERNELS)


def _compile_kernels() -> None:
    """Every signature the solvers call, on placeholder constants (the types are all that count)."""
    from ik_solvers.solvers.geometric.kernels import leg

    k, work, q = np.ones(leg.SIZE), np.empty((3, leg.N)), np.zeros(leg.N)
    leg.solve_entries(k, np.eye(4).ravel(), q, False, q, work)
    count = 2
    out = (np.empty((count, leg.N)), np.empty(count, np.int64), np.empty(count), np.empty(count))
    columns = np.repeat(np.eye(4).reshape(16, 1), count, axis=1)
    leg.solve_columns(k, columns, np.zeros((leg.N, 1)), False, *out, np.empty(count, bool), work)


KERNELS = cache.KernelSet(
    "the closed forms' kernels",
    "about 20 s on a 2-core machine, once",
    (Path(__file__).resolve().parent,),
    _compile_kernels,
)
