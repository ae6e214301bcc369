"""The package's headline solve times in well under 30 s, to see a slowdown before it lands.

Prints, on the packaged humanoid (``l_sole``: a leg, ``l_wrist``: an S-R-S arm), the median and
p90 wall time and the median CPU time of one ``solve`` [µs] for the closed forms and dls, seeded near the answer (± 0.1 rad),
from random seeds and unseeded, and the throughput of ``solve_batch`` [solves/s] over 10,000
targets, beside the limit each figure should stay under on a quiet 2-core machine. Rows over
their limit are marked ``SLOW``; a seeded solve that costs more than 1.2× the unseeded one is
marked too. The machine's load (1-minute average) is printed first: on a shared machine figures
move by tens of percent, a change of 2× or more is real.

Run after ``make setup``: ``.venv/bin/python bench/quick.py`` (``--count N`` targets per row).
Every target's answer is checked against FK (1e-9 m, 1e-9 rad) and the joint limits.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

import ik_solvers as ik
from ik_solvers.resources import package_share_path
from ik_solvers.spatial import pose_error

# (chain tip, solver, seeds) → limit [µs] of the median on a quiet 2-core machine
LIMITS = {
    ("l_sole", "geometric", "near"): 37,
    ("l_sole", "geometric", "none"): 37,
    ("l_wrist", "geometric", "near"): 63,
    ("l_wrist", "geometric", "none"): 63,
    ("l_sole", "dls", "near"): 16,
    ("l_wrist", "dls", "near"): 16,
}
BATCH_LIMIT = 860e3  # [solves/s] the geometric batch, unseeded and seeded
BATCH = 10_000


def times_us(solver, targets: np.ndarray, seeds: np.ndarray | None) -> tuple[np.ndarray, float, float]:
    """Per-solve wall times [µs], the median CPU time of one solve [µs] (this process's, so less
    moved by neighbours than wall time) and the success rate of ``targets`` solved one by one."""
    solver.solve(targets[0], seed=None if seeds is None else seeds[0])  # kernels loaded
    times, cpu, solved = [], [], 0
    for i, target in enumerate(targets):
        # process_time is a system call (~0.6 µs here): outside the wall clock's window
        start_cpu = time.process_time()
        start = time.perf_counter()
        result = solver.solve(target, seed=None if seeds is None else seeds[i])
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        solved += result.success
    return np.array(times) * 1e6, float(np.median(cpu)) * 1e6, solved / len(targets)


def check(chain, targets: np.ndarray, q: np.ndarray, success: np.ndarray) -> int:
    """Rows reported solved whose FK misses the target by more than 1e-9 or that leave the limits."""
    position, angle = pose_error(targets, chain.fk(q))
    inside = np.all((q >= chain.lower - 1e-9) & (q <= chain.upper + 1e-9), axis=1)
    return int(np.count_nonzero(success & ((position > 1e-9) | (angle > 1e-9) | ~inside)))


def bench_chain(model, tip: str, count: int, rng: np.random.Generator) -> None:
    chain = model.chain("base_link", tip)
    q = chain.random_configurations(count, rng)
    targets = chain.fk(q)
    seeds = {
        "near": np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper),
        "random": chain.random_configurations(count, rng),
        "none": None,
    }
    solvers = {
        "geometric": ik.make_solver("geometric", chain),
        "dls": ik.make_solver("jacobian", chain, method="dls", timeout=0.01),
    }
    for name, solver in solvers.items():
        rows = {
            label: times_us(solver, targets, seed)
            for label, seed in seeds.items()
            if not (name == "dls" and label == "none")
        }
        unseeded = float(np.median(rows["none"][0])) if "none" in rows else None
        for label, (times, cpu, rate) in rows.items():
            median, limit = float(np.median(times)), LIMITS.get((tip, name, label))
            flags = "SLOW" if limit and median > limit else ""
            if label != "none" and unseeded and median > 1.2 * unseeded:
                flags += " seeded>1.2x"
            print(
                f"{tip:8} {name:10} {label:7} {median:8.1f} {np.percentile(times, 90):8.1f} {cpu:8.1f} "
                f"{rate:7.1%} {limit or '':>6} {flags}"
            )
    geometric = solvers["geometric"]
    repeats = -(-BATCH // count)
    big = np.repeat(targets, repeats, axis=0)[:BATCH]
    for label in ("near", "none"):
        big_seeds = None if seeds[label] is None else np.repeat(seeds[label], repeats, axis=0)[:BATCH]
        geometric.solve_batch(big[:10], seeds=None if big_seeds is None else big_seeds[:10])
        start, start_cpu = time.perf_counter(), time.process_time()
        batch = geometric.solve_batch(big, seeds=big_seeds)
        rate, cpu_rate = BATCH / (time.perf_counter() - start), BATCH / (time.process_time() - start_cpu)
        wrong = check(chain, big, batch.q, batch.success)
        flags = ("SLOW " if rate < BATCH_LIMIT else "") + (f"{wrong} WRONG" if wrong else "")
        print(
            f"{tip:8} {'geometric':10} {label:7} batch {rate / 1e3:9.0f} k/s {batch.success.mean():7.1%}"
            f" (CPU {cpu_rate / 1e3:.0f} k/s; limit {BATCH_LIMIT / 1e3:.0f} k/s) {flags}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200, help="targets per row (default 200)")
    args = parser.parse_args()
    start = time.perf_counter()
    model = ik.RobotModel.from_urdf_file(str(package_share_path("urdf", "humanoid.urdf")))
    print(f"load average (1 min) {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(
        f"{'chain':8} {'solver':10} {'seeds':7} {'median':>8} {'p90 µs':>8} {'cpu µs':>8} {'solved':>7} {'limit':>6}"
    )
    rng = np.random.default_rng(1)
    for tip in ("l_sole", "l_wrist"):
        bench_chain(model, tip, args.count, rng)
    print(f"total {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
