"""How many reachable in-limit targets the geometric leg solver meets on the ROBOTIS OP3's legs.

Targets are the FK of random in-limit configurations (``--count`` per leg), and as many again with
the hip roll exactly at ±π/2 (the hip gimbal, where the yaw and pitch axes align; issue 18). Each
set is solved unseeded, seeded near the answer (±0.05 rad) and seeded at random; a target counts as
met when the answer succeeds, its FK is within 1e-9 m / rad of the target and it is within limits.
Run: ``python bench/leg_reach.py`` (about 10 s).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from ik_solvers import RobotModel, make_solver

OP3_XACRO = "test/descriptions/op3_description/urdf/robotis_op3.urdf.xacro"
LEGS = (("body_link", "l_ank_roll_link"), ("body_link", "r_ank_roll_link"))


def met(chain, result, targets) -> int:
    """How many rows of ``result`` succeed exactly (1e-9 m / rad) within limits."""
    exact = np.abs(chain.fk(result.q) - targets).max(axis=(1, 2)) < 1e-9
    return int((result.success & exact & chain.within_limits(result.q)).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="targets per leg and set")
    count = parser.parse_args().count
    model = RobotModel.from_urdf_file(OP3_XACRO)
    print(f"{'leg':16} {'targets':8} {'unseeded':>10} {'near':>10} {'random':>10}")
    for base, tip in LEGS:
        chain = model.chain(base, tip)
        solver = make_solver("geometric", chain)
        rng = np.random.default_rng(0)
        for label in ("random", "gimbal"):
            q = chain.random_configurations(count, rng)
            if label == "gimbal":
                q[:, 1] = np.where(rng.random(count) < 0.5, -0.5, 0.5) * math.pi
            targets = chain.fk(q)
            near = np.clip(q + rng.normal(0.0, 0.05, q.shape), chain.lower, chain.upper)
            seeds = (None, near, chain.random_configurations(count, rng))
            counts = [met(chain, solver.solve_batch(targets, seeds=s), targets) for s in seeds]
            print(f"{tip:16} {label:8} " + " ".join(f"{n:>5}/{count}" for n in counts))


if __name__ == "__main__":
    main()
