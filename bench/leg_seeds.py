"""The compiled leg solve per CPU second by kind of seed: what a seeded solve costs over an unseeded one.

Times the batch kernel ``kernels.leg_batch.solve_rows`` alone on one thread (no Python checks
around it; the targets' checks and the seeds' clipping run in it, as ``solve_batch`` runs it) with
``time.process_time`` (this process's CPU time: less moved by neighbours on a shared machine than
wall time) on the packaged humanoid's ``l_sole``: 200 targets (FK of random in-limit
configurations) repeated to ``--rows``, unseeded, seeded with the answer itself, near it (±0.1
rad, as ``bench/quick.py``) and at random; best of 7. Run: ``python bench/leg_seeds.py`` (a few
seconds).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from leg_batch import kernel_arguments
from leg_targets import leg_targets

from ik_solvers.solvers.geometric.kernels import leg_batch


def rate(solver, targets: np.ndarray, seeds: np.ndarray | None) -> tuple[float, float]:
    """Rows per CPU second (best of 7) and the success rate of (M, 4, 4) ``targets`` solved at once."""
    arguments, best = kernel_arguments(solver, targets, seeds), np.inf
    for _ in range(7):
        start = time.process_time()
        leg_batch.solve_rows(*arguments, solver._work)
        best = min(best, time.process_time() - start)
    return len(targets) / best, float(np.mean(arguments[5][1] == 0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000, help="rows per call (default 10,000)")
    rows = parser.parse_args().rows
    solver, targets, seeds = leg_targets(rows)
    print(f"load average (1 min) {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for label, seed in seeds.items():
        per_second, solved = rate(solver, targets, seed)
        print(f"l_sole  {label:7} {per_second / 1e3:7.0f} k per CPU second  solved {solved:.1%}")


if __name__ == "__main__":
    main()
