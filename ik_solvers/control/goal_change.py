"""Is a new solution a jump along a moving target, or a new goal? (ik_node's branch guard, no ROS.)

A *jump* is a large joint change for a small change of the target: while a target moves, the
solver leaves the IK branch it was following (a wrist turning half a revolution while the hand
moved a few millimetres). A *new goal* is a target far from the last one: its solution is far from
the last one too, whichever branch it is on, and the limb approaches it at the velocity limit.

What the target's change needs is measured on the linearised chain: the least-norm joint change
J⁺ ξ that moves the tip by the pose change ξ (position [m]; rotation vector [rad], chain base
frame), at both ends (the current goal and the new solution; the larger counts, so that a long
move that one end's linearisation underestimates is still seen as long). A solution moving some
joint more than ``max_joint_jump`` from the goal is

- a *jump* when the target's change needs at most ``max_joint_jump`` (the target moved by as much
  as a stream of targets moves between two messages) and the joint moves more than JUMP_RATIO
  times that need;
- a *new goal* otherwise.

JUMP_RATIO separates the two (``bench/goal_change_bench.py``, 17 chains and solvers): far targets
(random in-limit configurations) whose need is at most 0.5 rad move a joint at most 3.0 × the need;
the jumps of seeded solves along smooth paths (steps over 0.5 rad) move one 4.7–21 × it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.chain import Chain
from ik_solvers.spatial import rotation_log

JUMP_RATIO = 4.0  # a joint change this many times what the target's change needs is a jump
DAMPING = 1e-2  # [m or rad] of the least-squares step: bounds the need next to a singularity
SMALL, NEW_GOAL, JUMP = "small", "new goal", "jump"


@dataclass(frozen=True)
class GoalChange:
    """How far a solution is from the limb's goal, and what that makes it.

    Attributes:
        kind: SMALL (no joint moves more than ``max_joint_jump``, or no goal yet), NEW_GOAL (a far
            target) or JUMP (a discontinuity along a moving target).
        message: the figures behind ``kind`` ("" for SMALL).
    """

    kind: str
    message: str = ""


def joint_steps(chain: Chain, q: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """|q - reference| per joint [rad or m], q and reference (..., n); continuous joints: the
    wrapped difference, at most π."""
    change = np.asarray(q, dtype=float) - reference
    turning = chain.continuous
    change[..., turning] = (change[..., turning] + np.pi) % (2.0 * np.pi) - np.pi
    return np.abs(change)


def pose_change(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """(6,) change from pose ``start`` to ``end`` (4, 4, one frame): position [m], then rotation
    vector [rad], both in that frame."""
    return np.concatenate([end[:3, 3] - start[:3, 3], rotation_log(end[:3, :3] @ start[:3, :3].T)])


def needed_change(chain: Chain, q: np.ndarray, change: np.ndarray) -> np.ndarray:
    """(n,) least-norm joint change [rad or m] that moves the tip of ``chain`` at ``q`` (n,) by
    ``change`` (6,) (:func:`pose_change`) on the linearised chain, damped by DAMPING."""
    jacobian = chain.jacobian(np.asarray(q, dtype=float))
    damped = jacobian @ jacobian.T + DAMPING**2 * np.eye(6)
    return jacobian.T @ np.linalg.solve(damped, change)


def target_need(
    chain: Chain, goal: np.ndarray, q: np.ndarray, target: np.ndarray
) -> tuple[np.ndarray, float]:
    """The target's change from the pose of ``goal`` (n,) to ``target`` (4, 4) (:func:`pose_change`)
    and the largest joint change [rad or m] it needs, linearised at ``goal`` and at ``q`` (n,), the
    larger of the two."""
    change = pose_change(chain.fk(goal), target)
    return change, max(float(np.abs(needed_change(chain, end, change)).max()) for end in (goal, q))


def judge(
    chain: Chain, goal: np.ndarray | None, q: np.ndarray, target: np.ndarray, max_jump: float
) -> GoalChange:
    """What solution ``q`` (n,) of ``target`` (4, 4, chain base frame) is to a limb whose goal is
    ``goal`` (n,) (None: no goal yet) [rad or m]; ``max_jump``: the node's ``max_joint_jump``."""
    if goal is None:
        return GoalChange(SMALL)
    steps = joint_steps(chain, q, goal)
    worst = int(np.argmax(steps))
    if steps[worst] <= max_jump:
        return GoalChange(SMALL)
    change, need = target_need(chain, goal, q, target)
    jump = need <= max_jump and steps[worst] > JUMP_RATIO * need
    moved = f"{1e3 * np.linalg.norm(change[:3]):.3g} mm and {np.linalg.norm(change[3:]):.3g} rad"
    joint = f"joint '{chain.joint_names[worst]}'"
    if jump:
        return GoalChange(
            JUMP,
            f"{joint} would jump {steps[worst]:.3g} from its goal {goal[worst]:.3g} while the target "
            f"moved {moved}, which needs a joint change of about {need:.3g}: more than "
            f"max_joint_jump = {max_jump:g} and {JUMP_RATIO:g} × that need",
        )
    return GoalChange(
        NEW_GOAL,
        f"{joint} moves {steps[worst]:.3g} from its goal {goal[worst]:.3g} for a target {moved} away, "
        f"which needs a joint change of about {need:.3g}",
    )
