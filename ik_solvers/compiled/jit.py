"""numba compilation for the package's compiled kernels: with the on-disk cache, with or without
numba's runtime.

Entering a compiled function increments (and leaving it decrements) the reference count of every
array it is passed, each member of a tuple included: atomic operations of a few ns each. The
Jacobian solver's model and buffer tuples hold some 30 arrays, which made these counts half the
cost of an iteration. So kernels that allocate nothing are :func:`borrowing`: compiled without
numba's runtime, they count no references and work on arrays their caller owns. Functions that
allocate are :func:`compiled` with the runtime, and return no arrays to borrowing callers.

A kernel split into small functions for reading is not always joined again: LLVM may leave a
callee a real call, with its arguments and results through memory (the leg's closed form split
in two cost 4 % more an unseeded solve; its pieces inlined, that solve took 16 % less). Such pieces are
:func:`inlined`: numba copies them into each caller before compiling it.

Compiled code is cached in ``__pycache__`` next to the source (``cache=True``); where no cache
directory is writable, it is compiled in memory in every process.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

import numba

# OpenMP threads (numba's threading layer here) that wait for work sleep rather than spin: a
# spinning waiter holds a core that a neighbour on a shared machine, or this process's own other
# thread, wants (the leg's batch on two threads at load 7: 663 against 502 CPU ns a row). Read by
# libgomp when numba first starts its threads (at a first parallel call, not on import); a
# user's setting is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _njit(
    function: Callable, runtime: bool, inline: str = "never", parallel: bool = False, errors: str = "python"
) -> Callable:
    """``numba.njit`` with the on-disk cache, or without it where no cache directory is writable
    (numba refuses ``cache=True`` then: a read-only install with a read-only home). ``_nrt`` is
    set explicitly, as callees otherwise inherit their caller's."""
    options = {"_nrt": runtime, "inline": inline, "parallel": parallel, "error_model": errors}
    try:
        return numba.njit(cache=True, **options)(function)
    except RuntimeError:
        return numba.njit(**options)(function)


def compiled(function: Callable) -> Callable:
    """A kernel with numba's runtime: it may allocate arrays (and return them to callers that are
    also :func:`compiled`, or to Python)."""
    return _njit(function, runtime=True)


def borrowing(function: Callable) -> Callable:
    """A kernel without numba's runtime: no reference counting, so it must allocate nothing and
    return no array; the arrays it is given (and views of them) stay owned by its caller."""
    return _njit(function, runtime=False)


def ieee_borrowing(function: Callable) -> Callable:
    """:func:`borrowing` with IEEE division: x / 0 gives ±inf or NaN instead of raising
    ZeroDivisionError (numba's ``error_model="numpy"``). Python's check is a test and branch at
    every division by a variable, and it keeps LLVM from vectorising a loop that divides (the 7-DoF
    arm's seed bounds over its candidate swivels: 4.5× faster vectorised). For kernels whose
    divisors are kept away from zero, so that the check never raises: the same answers."""
    return _njit(function, runtime=False, errors="numpy")


def inlined(function: Callable) -> Callable:
    """A :func:`borrowing` kernel that numba inlines into every compiled caller (``inline="always"``):
    for the small pieces of a hot kernel. Called from Python it runs as a kernel of its own."""
    return _njit(function, runtime=False, inline="always")


def parallel_borrowing(function: Callable) -> Callable:
    """:func:`borrowing`, its ``numba.prange`` loops run on numba's thread pool (one thread per
    core). numba's default threading layer where neither TBB nor OpenMP is installed (workqueue)
    aborts the process when two Python threads enter parallel code at once: callers hold
    :data:`PARALLEL_LOCK` around every call."""
    return _njit(function, runtime=False, parallel=True)


def ieee_inlined(function: Callable) -> Callable:
    """:func:`inlined` with :func:`ieee_borrowing`'s IEEE division: the pieces of a loop that
    should vectorise (a call left in the loop keeps it scalar)."""
    return _njit(function, runtime=False, inline="always", errors="numpy")


def ieee_parallel_borrowing(function: Callable) -> Callable:
    """:func:`parallel_borrowing` with :func:`ieee_borrowing`'s IEEE division."""
    return _njit(function, runtime=False, parallel=True, errors="numpy")


PARALLEL_LOCK = threading.Lock()  # one parallel kernel at a time in a process (see parallel_borrowing)
