"""The biped leg's batch on the cores (numba ``prange``): :func:`.leg.solve_columns`'s rows in
chunks that the threads of numba's pool take as they come free, each in its own scratch.

Chunks are handed out one at a time (``set_parallel_chunksize(1)``: OpenMP's dynamic schedule)
rather than split in equal halves up front: on a shared machine a thread that loses its core
would otherwise hold up the whole call while the other waits. Row by row the arithmetic is
:func:`.leg.solve`'s, so the answers are the one-thread batch's bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

from ik_solvers.compiled.jit import parallel_borrowing
from ik_solvers.solvers.geometric.kernels import leg

CHUNK = 256  # rows a thread takes at a time: ~0.1 ms of work, against a few µs to hand one out


@parallel_borrowing
def solve_columns_parallel(
    k, columns, seeds, seeded, q, reason, position_error, orientation_error, continuous, works
):
    """:func:`.leg.solve_columns` for the targets of ``columns`` (16, M) on numba's threads.

    seeds: (M, N) [rad] (rows), read when ``seeded``; works: one :data:`.leg.WORK` scratch per thread
    (:func:`workspaces`). Into q (M, N) and the (M,) result columns.
    """
    count = columns.shape[1]
    chunks = (count + CHUNK - 1) // CHUNK
    for chunk in numba.prange(chunks):
        start, stop = chunk * CHUNK, min((chunk + 1) * CHUNK, count)
        seed_start, seed_stop = (start, stop) if seeded else (0, 1)
        leg.solve_columns(
            k,
            columns[:, start:stop],
            seeds[seed_start:seed_stop],
            seeded,
            q[start:stop],
            reason[start:stop],
            position_error[start:stop],
            orientation_error[start:stop],
            continuous[start:stop],
            works[numba.get_thread_id()],
        )


def solve_columns_dynamic(*arguments) -> None:
    """:func:`solve_columns_parallel` with its chunks handed out one at a time (numba reads the
    calling thread's chunk size when the loop starts; a compiled call to set it would not cache)."""
    previous = numba.set_parallel_chunksize(1)
    try:
        solve_columns_parallel(*arguments)
    finally:
        numba.set_parallel_chunksize(previous)


def workspaces() -> np.ndarray:
    """One :data:`.leg.WORK` scratch per thread numba may run (stacked on the first axis)."""
    return np.empty((numba.config.NUMBA_NUM_THREADS, *leg.WORK))
