"""Streamed arm circles on other makers' descriptions: does the seeded solver stay on its branch?

For each arm chain ``find_body`` finds in each URDF or xacro file given: ik_demo's full-radius arm
circle (:class:`~ik_solvers.demo.trajectories.ArmTargets`, wrist orientation fixed) cut into
targets ``--step`` [m] apart, each solved by ``make_solver("auto", chain)`` seeded with the
previous answer, optionally plus Gaussian noise of ``--noise`` [rad] per joint (a measured state
off the goal, as ik_node's seeds are when /joint_states lags or sags). Prints per chain the
worst joint step [rad] between consecutive answers, the steps above ``--jump`` [rad] and the
failed solves. The figures of docs/continuity.md ("Streamed arm circles on THORMANG3") come from it.
Run: ``python bench/maker_arm_stream.py FILE... [--step 0.006] [--noise 0.0] [--jump 0.3]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ik_solvers import RobotModel, make_solver
from ik_solvers.demo.trajectories import ArmTargets, Sizes, joint_origins
from ik_solvers.limbs import find_body


def circle(arm: ArmTargets, step: float) -> np.ndarray:
    """(N, 4, 4) wrist poses [m] on the arm's full-radius circle, ``step`` [m] apart."""
    count = max(8, int(2.0 * np.pi * arm.radius / step))
    angles = np.linspace(0.0, 2.0 * np.pi, count + 1)
    poses = np.repeat(np.eye(4)[None], count + 1, axis=0)
    poses[:, :3, :3] = arm.rotation
    poses[:, :3, 3] = arm.centre
    poses[:, 1, 3] += arm.radius * np.cos(angles)
    poses[:, 2, 3] += arm.radius * np.sin(angles)
    return poses


def stream(body, name: str, options: argparse.Namespace, rng: np.random.Generator) -> str:
    """One line for arm chain ``name``: solver, targets, worst step [rad], jumps, failures."""
    chain = body.model.chain(*body.chains[name])
    solver = make_solver("auto", chain, timeout=None)
    poses = circle(ArmTargets(chain, joint_origins(body.model, chain), Sizes()), options.step)
    q = solver.solve(poses[0]).q
    worst, jumps, failed = 0.0, 0, 0
    for pose in poses[1:]:
        seed = np.clip(q + rng.normal(0.0, options.noise, chain.n), chain.lower, chain.upper)
        result = solver.solve(pose, seed=seed)
        if not result.success:
            failed += 1
            continue
        change = float(np.abs(result.q - q).max())
        worst, jumps, q = max(worst, change), jumps + (change > options.jump), result.q
    return (
        f"  {name}: {chain.n} joints, {type(solver).__name__}, {len(poses) - 1} targets: worst step "
        f"{worst:.3f} rad, steps > {options.jump} rad: {jumps}, failed {failed}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="+", help="URDF or xacro files")
    parser.add_argument("--step", type=float, default=0.006, help="target spacing [m]")
    parser.add_argument("--noise", type=float, default=0.0, help="seed noise per joint [rad]")
    parser.add_argument("--jump", type=float, default=0.3, help="a step above this is a jump [rad]")
    options = parser.parse_args()
    rng = np.random.default_rng(1)
    for path in options.files:
        body = find_body(RobotModel.from_urdf_file(path))
        print(f"{path}: robot '{body.model.name}', seed noise {options.noise} rad")
        for name in (name for name in body.chains if "arm" in name):
            print(stream(body, name, options, rng))


if __name__ == "__main__":
    main()
