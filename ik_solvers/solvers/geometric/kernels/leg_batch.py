"""The biped leg's batch: :func:`.leg.solve_entries` on each row-major target, checked as it goes,
on one thread (:func:`solve_rows`) or on the cores (numba ``prange``: chunks that the threads of
numba's pool take as they come free, each in its own scratch).

The targets stay as the caller has them, (M, 16) rows of a (M, 4, 4) array: no transposed copy,
and the checks of the targets (:func:`.inputs.check`'s verdict) and the seeds' clipping run in the
same pass as the solves, on the same threads. Chunks are handed out one at a time
(``set_parallel_chunksize(1)``: OpenMP's dynamic schedule) rather than split in equal halves up
front: on a shared machine a thread that loses its core would otherwise hold up the whole call
while the other waits. Row by row the arithmetic is :func:`.leg.solve`'s, so the answers are the
one-thread batch's, and a single solve's, bit for bit.
"""

from __future__ import annotations

import numba
import numpy as np

from ik_solvers.compiled.jit import ieee_borrowing, parallel_borrowing
from ik_solvers.solvers.geometric.kernels import inputs, leg

CHUNK = 256  # rows a thread takes at a time: ~0.1 ms of work, against a few µs to hand one out


@ieee_borrowing
def solve_rows(k, targets, seeds, seeded, bounds, out, clipped, work):
    """:func:`.leg.solve_entries` for each target of ``targets`` (M, 16) (row-major pose entries).

    seeds: (M, N) [rad], read when ``seeded``, clipped into the limits into ``clipped`` (M, N) (both
    (1, N) placeholders unseeded). bounds: (3, N) lower and upper limits and the rest q [rad].
    out: q (M, N), reason, position error [m], orientation error [rad], continuous (M,); a malformed
    target's row gets :func:`.inputs.refuse_row`. A seed with a non-finite entry leaves its row
    unsolved, its reason :data:`.inputs.BAD_SEED_ROW` (the caller refuses the batch).
    """
    q, reason, position_error, orientation_error, continuous = out
    for m in range(targets.shape[0]):
        if inputs.row_ready(m, targets, seeds, seeded, bounds, clipped, out):
            e, seed = targets[m], clipped[m if seeded else 0]
            found = leg.solve_entries(k, e, seed, seeded, q[m], work)
            reason[m], position_error[m], orientation_error[m], continuous[m] = found


@parallel_borrowing
def solve_rows_parallel(k, targets, seeds, seeded, bounds, out, clipped, works):
    """:func:`solve_rows` on numba's threads, in chunks of CHUNK rows; works: one
    :data:`.leg.WORK` scratch per thread (:func:`workspaces`)."""
    count = targets.shape[0]
    for chunk in numba.prange((count + CHUNK - 1) // CHUNK):
        start, stop = chunk * CHUNK, min((chunk + 1) * CHUNK, count)
        seed_start, seed_stop = (start, stop) if seeded else (0, 1)
        part = (
            out[0][start:stop],
            out[1][start:stop],
            out[2][start:stop],
            out[3][start:stop],
            out[4][start:stop],
        )
        solve_rows(
            k,
            targets[start:stop],
            seeds[seed_start:seed_stop],
            seeded,
            bounds,
            part,
            clipped[seed_start:seed_stop],
            works[numba.get_thread_id()],
        )


def solve_rows_dynamic(*arguments) -> None:
    """:func:`solve_rows_parallel` with its chunks handed out one at a time (numba reads the
    calling thread's chunk size when the loop starts; a compiled call to set it would not cache)."""
    previous = numba.set_parallel_chunksize(1)
    try:
        solve_rows_parallel(*arguments)
    finally:
        numba.set_parallel_chunksize(previous)


def workspaces() -> np.ndarray:
    """One :data:`.leg.WORK` scratch per thread numba may run (stacked on the first axis)."""
    return np.empty((numba.config.NUMBA_NUM_THREADS, *leg.WORK))
