"""The leg's batch per row [ns]: the compiled kernel alone and ``solve_batch`` end to end, on one
thread and on the cores, unseeded and seeded.

On the packaged humanoid's ``l_sole``: 200 targets (FK of random in-limit configurations) repeated
to ``--rows``, unseeded, seeded near the answer (±0.1 rad, as ``bench/quick.py``) and at random.
Each figure is the best of 7 calls: wall time and this process's CPU time (all its threads) per
row. On a shared machine wall time moves with the neighbours; a two-thread call is only faster
where a second core is free. The 1-minute load is printed first.
Run: ``python bench/leg_batch.py`` (a few seconds).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
from leg_targets import leg_targets

from ik_solvers.solvers.geometric import leg
from ik_solvers.solvers.geometric.kernels import leg_batch


def per_row(call: Callable[[], object], rows: int) -> tuple[float, float]:
    """Best wall and best CPU time of 7 calls [ns a row]."""
    call()
    wall = cpu = np.inf
    for _ in range(7):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall / rows * 1e9, cpu / rows * 1e9


def kernel_arguments(solver, targets: np.ndarray, seeds: np.ndarray | None) -> tuple:
    """:func:`.leg_batch.solve_rows`' arguments but the scratch for (M, 4, 4) ``targets`` as
    (M, 16) rows (checked and the seeds clipped in the kernel, as ``solve_batch`` runs it); its
    results (q, reason, errors, continuous) are the sixth."""
    count, seeded = len(targets), seeds is not None
    rows = np.ascontiguousarray(targets.reshape(count, 16))
    seeds = np.ascontiguousarray(seeds) if seeded else np.zeros((1, 6))
    out = (np.empty((count, 6)), np.empty(count, np.int64), np.empty(count), np.empty(count))
    out += (np.empty(count, bool),)
    return (solver._constants, rows, seeds, seeded, solver._row_bounds, out, np.empty_like(seeds))


def kernel_calls(solver, targets: np.ndarray, seeds: np.ndarray | None) -> dict[str, Callable]:
    """The batch kernel alone on one thread and on the cores (:func:`kernel_arguments`)."""
    arguments, works = kernel_arguments(solver, targets, seeds), leg_batch.workspaces()
    return {
        "kernel, one thread": lambda: leg_batch.solve_rows(*arguments, solver._work),
        "kernel, the cores": lambda: leg_batch.solve_rows_dynamic(*arguments, works),
    }


def one_thread(solver, targets: np.ndarray, seeds: np.ndarray | None):
    """``solve_batch`` with the cores' threshold above the batch (the one-thread kernel)."""
    threshold, leg.PARALLEL_ROWS = leg.PARALLEL_ROWS, len(targets) + 1
    try:
        return solver.solve_batch(targets, seeds=seeds)
    finally:
        leg.PARALLEL_ROWS = threshold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000, help="rows per call (default 10,000)")
    rows = parser.parse_args().rows
    solver, targets, seeds = leg_targets(rows)
    del seeds["self"]  # the seed that is its own answer: bench/leg_seeds.py
    print(f"load average (1 min) {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {rows} rows a call")
    print(f"{'seeds':7} {'what':27} {'wall ns':>8} {'CPU ns':>8}  (a row; M/s wall)")
    for label, seed in seeds.items():
        calls = kernel_calls(solver, targets, seed)
        calls["solve_batch, the cores"] = lambda seed=seed: solver.solve_batch(targets, seeds=seed)
        calls["solve_batch, one thread"] = lambda seed=seed: one_thread(solver, targets, seed)
        for what, call in calls.items():
            wall, cpu = per_row(call, rows)
            print(f"{label:7} {what:27} {wall:8.0f} {cpu:8.0f}  ({1e3 / wall:.2f} M/s)")


if __name__ == "__main__":
    main()
