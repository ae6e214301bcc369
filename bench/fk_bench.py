"""FK and Jacobian speed on the packaged humanoid's 7-joint arm chain.

Prints the median time of one ``fk_and_jacobian`` call (single configuration) and of one ``fk``
call, and the throughput of batched ``fk`` / ``fk_and_jacobian`` over N = 100,000 configurations.
Medians over repeated runs: this machine is shared and noisy. Run: ``make bench`` or
``python bench/fk_bench.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path


def median_seconds(call: Callable[[], object], repeats: int, inner: int = 1) -> float:
    """Median wall time [s] of ``inner`` calls, over ``repeats`` timed runs, divided by ``inner``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            call()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=100_000, help="configurations per batch")
    parser.add_argument("--tip", default="l_wrist", help="tip link of the chain from base_link")
    args = parser.parse_args()

    chain = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain(
        "base_link", args.tip
    )
    rng = np.random.default_rng(0)
    singles = chain.random_configurations(2000, rng)
    batch = chain.random_configurations(args.batch, rng)
    iterator = iter(np.tile(singles, (50, 1)))

    fk_jac = median_seconds(lambda: chain.fk_and_jacobian(next(iterator)), repeats=2000)
    fk_single = median_seconds(lambda: chain.fk(next(iterator)), repeats=2000)
    batch_fk = median_seconds(lambda: chain.fk(batch), repeats=5)
    batch_both = median_seconds(lambda: chain.fk_and_jacobian(batch), repeats=3)

    print(f"chain base_link -> {args.tip}: {chain.n} joints")
    print(f"{'measure':<40} {'value':>14}")
    print(f"{'single fk_and_jacobian, median':<40} {fk_jac * 1e6:>11.1f} us")
    print(f"{'single fk, median':<40} {fk_single * 1e6:>11.1f} us")
    print(f"{f'batched fk, N={args.batch}':<40} {args.batch / batch_fk:>11,.0f} /s")
    print(f"{f'batched fk_and_jacobian, N={args.batch}':<40} {args.batch / batch_both:>11,.0f} /s")


if __name__ == "__main__":
    main()
