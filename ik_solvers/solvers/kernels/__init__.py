"""Compiled (numba, nopython) kernels of the Jacobian solvers.

- :mod:`.kinematics`: FK and geometric Jacobian of one configuration, the 6D pose error.
- :mod:`.steps`: the joint step of each method, null-space goals, step bound and joint limits.
- :mod:`.linear`: Cholesky factor and solve of the small Gram matrices.
- :mod:`.attempts`: the attempts of many targets (seed, then restarts side by side), round by round.

Everything here works on one configuration at a time with plain loops, into preallocated
buffers: at 6-7 joints, per-call overheads of numpy (about 1 µs per call) would dominate. The
functions are compiled on first use and cached in ``__pycache__`` (``cache=True``); where that
directory is read-only, numba warns and compiles in memory.

Entering a compiled function increments (and leaving it decrements) the reference count of every
array it is passed, each member of a tuple included: atomic operations of a few ns each. The
model and buffer tuples hold some 30 arrays, which made these counts half the cost of an
iteration. So the per-iteration kernels, which allocate nothing, are :func:`borrowing`: compiled
without numba's runtime, they count no references and work on arrays their caller owns. The
few functions that allocate (SVD, CCD's small vectors, the buffers themselves) are
:func:`compiled` with the runtime, and return no arrays to borrowing callers.
"""

from __future__ import annotations

from collections.abc import Callable

import numba


def _njit(function: Callable, runtime: bool) -> Callable:
    """``numba.njit`` with the on-disk cache, or without it where no cache directory is writable
    (numba refuses ``cache=True`` then: a read-only install with a read-only home). ``_nrt`` is
    set explicitly, as callees otherwise inherit their caller's."""
    try:
        return numba.njit(cache=True, _nrt=runtime)(function)
    except RuntimeError:
        return numba.njit(_nrt=runtime)(function)


def compiled(function: Callable) -> Callable:
    """A kernel with numba's runtime: it may allocate arrays (and return them to callers that are
    also :func:`compiled`, or to Python)."""
    return _njit(function, runtime=True)


def borrowing(function: Callable) -> Callable:
    """A kernel without numba's runtime: no reference counting, so it must allocate nothing and
    return no array; the arrays it is given (and views of them) stay owned by its caller."""
    return _njit(function, runtime=False)
