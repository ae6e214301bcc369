"""Compiled (numba, nopython) kernels of the Jacobian solvers.

- :mod:`.kinematics`: FK and geometric Jacobian of one configuration, the 6D pose error.
- :mod:`.steps`: the joint step of each method, null-space goals, step bound and joint limits.
- :mod:`.attempts`: the attempts of many targets (seed, then restarts side by side), round by round.

Everything here works on one configuration at a time with plain loops, into preallocated
buffers: at 6-7 joints, per-call overheads of numpy (about 1 µs per call) would dominate. The
functions are compiled on first use and cached in ``__pycache__`` (``cache=True``); where that
directory is read-only, numba warns and compiles in memory.
"""

from __future__ import annotations

from collections.abc import Callable

import numba


def compiled(function: Callable) -> Callable:
    """``numba.njit`` with the on-disk cache, or without it where no cache directory is writable
    (numba refuses ``cache=True`` then: a read-only install with a read-only home)."""
    try:
        return numba.njit(cache=True)(function)
    except RuntimeError:
        return numba.njit(function)
