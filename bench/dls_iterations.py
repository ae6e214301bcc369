"""How many iterations and restarts dls takes, per chain, from random and near seeds: figures that
the machine's load does not move (the CPU time of a solve is printed beside them).

The chains of bench/peers_bench.py (two legs, two S-R-S arms, the Panda-like arm); targets FK of
random in-limit configurations, seeds random in-limit or near the answer (each joint ± 0.1 rad);
no time limit, so every target runs until it converges or its restarts run out. "iterations" are
rounds: one iteration of each active attempt of the target (up to ``parallel_restarts`` side by side).

    .venv/bin/python bench/dls_iterations.py [--count 1000]
"""

from __future__ import annotations

import argparse
import os
import re
import time

import numpy as np
from peers_bench import chains

from ik_solvers import RobotModel, make_solver

RESTARTS = re.compile(r"(\d+) restarts")  # the count each answer's message gives


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help="targets per row (1000)")
    count = parser.parse_args().count
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {count} targets a row, no time limit"
    )
    print(
        f"{'chain':26} {'seeds':6} {'solved':>7}  iterations: mean median p99 max   restarts: mean p99 max   CPU µs/solve"
    )
    for label, path, base, tip, _ in chains():
        chain = RobotModel.from_urdf_file(str(path)).chain(base, tip)
        rng = np.random.default_rng(1)
        q = chain.random_configurations(count, rng)
        targets = chain.fk(q)
        solver = make_solver("jacobian", chain, method="dls", timeout=None)
        for kind in ("random", "near"):
            if kind == "random":
                seeds = chain.random_configurations(count, rng)
            else:
                seeds = np.clip(q + rng.uniform(-0.1, 0.1, q.shape), chain.lower, chain.upper)
            start = time.process_time()
            batch = solver.solve_batch(targets, seeds)
            cpu = (time.process_time() - start) / count * 1e6
            rounds = np.asarray(batch.iterations)
            restarts = np.array([int(RESTARTS.search(message).group(1)) for message in batch.messages])
            solved = batch.success.mean()
            print(
                f"{label:26} {kind:6} {solved:7.1%}  {rounds.mean():10.1f} {np.median(rounds):6.0f} "
                f"{np.percentile(rounds, 99):3.0f} {rounds.max():4d}   {restarts.mean():13.2f} "
                f"{np.percentile(restarts, 99):3.0f} {restarts.max():3d}   {cpu:8.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
