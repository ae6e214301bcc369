"""The compiled leg solve per CPU second by kind of seed: what a seeded solve costs over an unseeded one.

Times ``kernels.leg.solve_columns`` alone (no Python checks around it) with ``time.process_time``
(this process's CPU time: less moved by neighbours on a shared machine than wall time) on the
packaged humanoid's ``l_sole``: 200 targets (FK of random in-limit configurations) repeated to
``--rows``, unseeded, seeded with the answer itself, near it (±0.1 rad, as ``bench/quick.py``) and
at random; best of 7. Run: ``python bench/leg_seeds.py`` (a few seconds).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from leg_targets import leg_targets

from ik_solvers.solvers.geometric.kernels import leg as kernel


def rate(solver, columns: np.ndarray, seeds: np.ndarray | None) -> tuple[float, float]:
    """Rows per CPU second (best of 7) and the success rate of ``columns`` (16, M) solved at once."""
    count, seeded = columns.shape[1], seeds is not None
    seeds = np.ascontiguousarray(seeds) if seeded else np.zeros((1, 6))
    out = (np.empty((count, 6)), np.empty(count, np.int64), np.empty(count), np.empty(count))
    continuous, best = np.empty(count, bool), np.inf
    for _ in range(7):
        start = time.process_time()
        kernel.solve_columns(solver._constants, columns, seeds, seeded, *out, continuous, solver._work)
        best = min(best, time.process_time() - start)
    return count / best, float(np.mean(out[1] == 0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000, help="rows per call (default 10,000)")
    rows = parser.parse_args().rows
    solver, targets, seeds = leg_targets(rows)
    columns = np.ascontiguousarray(targets.reshape(rows, 16).T)
    print(f"load average (1 min) {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for label, seed in seeds.items():
        per_second, solved = rate(solver, columns, seed)
        print(f"l_sole  {label:7} {per_second / 1e3:7.0f} k per CPU second  solved {solved:.1%}")


if __name__ == "__main__":
    main()
