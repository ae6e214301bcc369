"""Other makers' humanoid descriptions, loaded unedited: limbs, IK per chain, and the offline walk.

For each URDF or xacro file given: the limbs ``find_body`` finds and why the robot cannot stand
(if so); per chain, ``make_solver("auto", chain, timeout=None)`` unseeded on the FK of ``--count``
random in-limit configurations, a target met when the answer succeeds, is exact to 1e-6 m /
1e-5 rad (arms under 6 joints: position only) and in the limits; with ``--walk``, when it can
stand, the offline loop (``config/walk.yaml``, collision meshes whose files are missing left out):
1 m at 0.9 of the robot's largest forward command, then 4 s standing, the ideal servos'
``saturation_error`` [rad] and ``support_stiffness`` [1/rad] as given (motors too weak for the weight get
``weak_support_stiffness`` anyway: ``ServoConfig``). The figures of docs/your-robot.md ("Other makers'
humanoids") come from it.
Run: ``python bench/maker_robots.py FILE... [--count 100] [--walk] [--saturation-error 0.02]
[--support-stiffness 0]``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from ik_solvers import RobotModel, make_solver
from ik_solvers.description import load_description
from ik_solvers.limbs import find_body
from ik_solvers.sim.mujoco_robot import ServoConfig
from ik_solvers.sim.mujoco_urdf import without_missing_meshes
from ik_solvers.walk import walk_metrics
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker

POSITION_TOLERANCE = 1e-6  # [m]
ORIENTATION_TOLERANCE = 1e-5  # [rad]


def met(chain, result, target_q: np.ndarray) -> bool:
    """Whether ``result`` meets the FK of ``target_q`` exactly and within the limits."""
    exact = result.position_error < POSITION_TOLERANCE and (
        chain.n < 6 or result.orientation_error < ORIENTATION_TOLERANCE
    )
    inside = np.all(result.q >= chain.lower - 1e-9) and np.all(result.q <= chain.upper + 1e-9)
    return bool(result.success and exact and inside)


def solve_chains(body, count: int) -> None:
    """Print per chain: its links, joints, the solver auto picked and the targets met."""
    rng = np.random.default_rng(0)
    for name, (base, tip) in body.chains.items():
        chain = body.model.chain(base, tip)
        solver = make_solver("auto", chain, timeout=None)
        configurations = chain.random_configurations(count, rng)
        hits = sum(met(chain, solver.solve(chain.fk(q)), q) for q in configurations)
        print(f"  {name}: {base} -> {tip}, {chain.n} joints, {type(solver).__name__}: {hits}/{count}")


def walk(path: Path, saturation_error: float, support_stiffness: float) -> None:
    """Print the offline walk's figures: fall, distance [m], tilt [deg], slip [mm], heading [deg]."""
    description = without_missing_meshes(load_description(path))
    servo = ServoConfig(saturation_error=saturation_error, support_stiffness=support_stiffness)
    walker = OfflineWalker(description.self_contained(), load_walk_config(), servo=servo)
    forward = 0.9 * walker.generator.max_command[0]
    walker.settle(0.5)
    walker.run([(0.5, (0.0, 0.0, 0.0)), (1.0 / forward, (forward, 0.0, 0.0)), (4.0, (0.0, 0.0, 0.0))])
    measured = walker.log.measured()
    base, times = measured["base"], measured["times"]
    slip = walk_metrics.sole_slip(times, measured["soles"], measured["support"])
    heading = walk_metrics.heading_change(times, base, times[0], times[-1])
    print(
        f"  walk (offline, saturation_error {saturation_error} rad, support_stiffness "
        f"{support_stiffness}): fell "
        f"{walk_metrics.fell(base, measured['com'])}, {base[-1][0] - base[0][0]:.2f} m, tilt "
        f"{walk_metrics.tilt_degrees(base).max():.1f} deg, slip {slip * 1e3:.1f} mm, heading "
        f"{np.degrees(heading):.2f} deg"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="+", help="URDF or xacro files")
    parser.add_argument("--count", type=int, default=100, help="IK targets per chain")
    parser.add_argument("--walk", action="store_true", help="also the offline walk, when it can stand")
    parser.add_argument("--saturation-error", type=float, default=0.02, help="ideal servos [rad]")
    parser.add_argument(
        "--support-stiffness", type=float, default=0.0, help="leg servos' least kp / (m g z_c) [1/rad]"
    )
    options = parser.parse_args()
    for path in options.files:
        body = find_body(RobotModel.from_urdf_file(path))
        print(f"{path}: robot '{body.model.name}', root '{body.model.root}'")
        print(f"  stands: {'yes' if not body.whole_body_problem else 'no: ' + body.whole_body_problem}")
        solve_chains(body, options.count)
        if options.walk and not body.whole_body_problem:
            walk(path, options.saturation_error, options.support_stiffness)


if __name__ == "__main__":
    main()
