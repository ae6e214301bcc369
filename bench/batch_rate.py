"""``solve_batch`` throughput of the closed forms [M solves/s], wall and per CPU second, with the
share of the time spent outside the batch kernel.

On the packaged humanoid's ``l_sole`` (leg) and ``l_wrist`` (7-DoF arm): ``--rows`` targets (FK of
random in-limit configurations), unseeded, seeded near the answer (±0.1 rad, as ``bench/quick.py``)
and at random. Each figure is the best of ``--repeats`` calls: wall time and this process's CPU
time (all its threads). "kernel" is the solver's batch kernel alone on the same rows (the targets
already checked and laid out as it reads them), when the solver has ``_solve_rows``; "outside" is
solve_batch's CPU time less the kernel's, per row. Wall figures move with the neighbours on a
shared machine: the 1-minute load is printed first. Targets needed (issue 19): legs 5 M/s, arms
2 M/s, i.e. at most 400 and 1000 CPU ns a row all included, on two free cores.
Run: ``python bench/batch_rate.py`` (about 20 s; ``--rows 100000`` for the per-call costs' share).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from functools import partial

import numpy as np

import ik_solvers as ik
from ik_solvers.resources import package_share_path


def best(call: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Best wall and best CPU time [s] of ``repeats`` calls, after one."""
    call()
    wall = cpu = np.inf
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def kernel_call(solver, targets: np.ndarray, seeds: np.ndarray | None) -> Callable | None:
    """The solver's batch kernel alone (``_solve_rows``), or None where it has none."""
    if not hasattr(solver, "_solve_rows"):
        return None
    count, n = len(targets), solver.chain.n
    rows = np.ascontiguousarray(targets.reshape(count, 16))
    seeds = None if seeds is None else np.ascontiguousarray(seeds)
    out = (np.empty((count, n)), np.empty(count, np.int64), np.empty(count), np.empty(count))
    out += (np.ones(count, bool),)
    return lambda: solver._solve_rows(rows, seeds, None, out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000, help="rows per call (default 10,000)")
    parser.add_argument("--repeats", type=int, default=7, help="timed calls per figure (default 7)")
    arguments = parser.parse_args()
    rows = arguments.rows
    model = ik.RobotModel.from_urdf_file(str(package_share_path("urdf", "humanoid.urdf")))
    print(f"load average (1 min) {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {rows} rows a call")
    print(
        f"{'chain':8} {'seeds':7} {'M/s wall':>9} {'M/s CPU':>8} {'CPU ns':>7} {'kernel':>7} {'outside':>8}"
    )
    for tip in ("l_sole", "l_wrist"):
        chain = model.chain("base_link", tip)
        solver = ik.make_solver("geometric", chain)
        rng = np.random.default_rng(1)
        q = chain.random_configurations(rows, rng)
        targets = chain.fk(q)
        seeds = {
            "none": None,
            "near": np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper),
            "random": chain.random_configurations(rows, rng),
        }
        for label, seed in seeds.items():
            wall, cpu = best(partial(solver.solve_batch, targets, seeds=seed), arguments.repeats)
            kernel = kernel_call(solver, targets, seed)
            kernel_cpu = best(kernel, arguments.repeats)[1] if kernel else np.nan
            per_row, kernel_row = cpu / rows * 1e9, kernel_cpu / rows * 1e9
            print(
                f"{tip:8} {label:7} {rows / wall / 1e6:9.2f} {rows / cpu / 1e6:8.2f} {per_row:7.0f}"
                f" {kernel_row:7.0f} {per_row - kernel_row:8.1f}"
            )


if __name__ == "__main__":
    main()
