"""ik_node's branch guard (ik_solvers/control/goal_change.py): far targets go, jumps are held.

Per chain and solver, two figures of the rule that decides whether a solution moving a joint more
than ``max_joint_jump`` (0.5 rad) from the limb's goal is a new goal (commanded at the velocity
limit) or a jump along a moving target (held):

- far targets: pairs of random in-limit configurations, the first the limb's goal (the seed), the
  FK of the second the new target. Of the solved ones that move a joint more than 0.5 rad, how
  many the rule would hold (it should hold none: the robot must go where it is told), and the
  largest ratio of joint change to the linearised need among those whose need is at most 0.5 rad
  (the rule holds above JUMP_RATIO; 0 when there is none);
- moving targets: the smooth paths of bench/continuity_bench.py tracked by seeded solves. Of the
  steps that move a joint more than 0.5 rad (the jumps of target-by-target solving), how many the
  rule holds (it should hold all), and their smallest ratio (inf: the need exceeded 0.5 rad).

    python bench/goal_change_bench.py [--targets 500] [--paths 10] [--only arm]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "test")]

from continuity_bench import chains, smooth_paths

from ik_solvers import Chain, make_solver
from ik_solvers.control.goal_change import JUMP, JUMP_RATIO, joint_steps, judge, target_need
from ik_solvers.solvers import UnsupportedChainError

MAX_JUMP = 0.5  # [rad] the node's default max_joint_jump


def ratio(chain: Chain, goal: np.ndarray, q: np.ndarray, target: np.ndarray) -> float:
    """Largest joint change from ``goal`` to ``q`` over the need of the target's change (inf when
    the need exceeds MAX_JUMP: no jump whatever the ratio)."""
    need = target_need(chain, goal, q, target)[1]
    return joint_steps(chain, q, goal).max() / need if need <= MAX_JUMP else np.inf


def far_targets(chain: Chain, solver, count: int, rng: np.random.Generator) -> tuple[int, int, float]:
    """(far solutions, of them judged jumps, largest change/need ratio where need ≤ MAX_JUMP)."""
    far, held, worst = 0, 0, 0.0
    for goal, other in zip(chain.random_configurations(count, rng), chain.random_configurations(count, rng)):
        target = chain.fk(other)
        result = solver.solve(target, seed=goal)
        step = joint_steps(chain, result.q, goal).max()
        if not result.success or step <= MAX_JUMP:
            continue
        far += 1
        held += judge(chain, goal, result.q, target, MAX_JUMP).kind == JUMP
        worst = max(worst, np.nan_to_num(ratio(chain, goal, result.q, target), posinf=0.0))
    return far, held, worst


def moving_targets(chain: Chain, solver, paths: np.ndarray) -> tuple[int, int, float]:
    """(steps moving a joint more than MAX_JUMP along the paths, of them judged jumps, their
    smallest change/need ratio)."""
    jumps, held, least = 0, 0, np.inf
    for path in paths:
        goal = path[0]
        for target in chain.fk(path):
            result = solver.solve(target, seed=goal)
            if joint_steps(chain, result.q, goal).max() > MAX_JUMP:
                jumps += 1
                held += judge(chain, goal, result.q, target, MAX_JUMP).kind == JUMP
                least = min(least, ratio(chain, goal, result.q, target))
            goal = result.q
    return jumps, held, least


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=500, help="far targets per chain and solver")
    parser.add_argument("--paths", type=int, default=10, help="smooth paths (400 steps) per chain")
    parser.add_argument("--only", default="", help="only chains whose label contains this")
    args = parser.parse_args()
    print(f"max_joint_jump {MAX_JUMP} rad, JUMP_RATIO {JUMP_RATIO:g}")
    print(
        f"{'chain':26s} {'solver':10s} {'far':>5s} {'held':>5s} {'max ratio':>9s} {'jumps':>6s} {'held':>5s} {'min ratio':>9s}"
    )
    for label, chain in chains():
        if args.only not in label:
            continue
        paths = smooth_paths(chain, args.paths, np.random.default_rng(0))
        for kind in ("geometric", "jacobian"):
            try:
                solver = make_solver(kind, chain)
            except UnsupportedChainError:
                continue
            far, far_held, worst = far_targets(chain, solver, args.targets, np.random.default_rng(1))
            jumps, held, least = moving_targets(chain, solver, paths)
            print(
                f"{label:26s} {kind:10s} {far:5d} {far_held:5d} {worst:9.2f} {jumps:6d} {held:5d} {least:9.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
