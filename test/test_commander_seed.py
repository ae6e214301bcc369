"""ik_node's seeds (:meth:`Commander.seed`): a streamed circle stays on the goal's branch
although the measured state is off the goal, on a 7-joint arm whose shoulder axes do not meet
(THORMANG3's left arm geometry, no closed form: the Jacobian solver)."""

from __future__ import annotations

import numpy as np

from ik_solvers import RobotModel
from ik_solvers.control.commander import Commander

JOINTS = (  # name, origin [m] from the previous joint, axis, limit [rad]: THORMANG3's left arm
    ("sh_p1", (0.0, 0.152, 0.16), (0, 1, 0), 1.5708),
    ("sh_r", (0.057, 0.06, -0.039), (-1, 0, 0), 1.5708),
    ("sh_p2", (-0.057, 0.033, 0.0), (0, 1, 0), 1.5708),
    ("el_y", (0.03, 0.187, 0.057), (0, 0, -1), 1.2566),
    ("wr_r", (0.171, 0.03, -0.057), (1, 0, 0), 2.8274),
    ("wr_y", (0.039, 0.0, 0.045), (0, 0, -1), 1.4137),
    ("wr_p", (0.045, -0.045, -0.045), (0, -1, 0), 1.4137),
)
INERTIAL = '<inertial><mass value="0.5"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial>'


def arm_urdf() -> str:
    """URDF of the arm on a fixed chest."""
    links = ["chest", *(name for name, *_ in JOINTS)]
    parts = [f'<link name="{link}">{INERTIAL}</link>' for link in links]
    for parent, (name, xyz, axis, limit) in zip(links, JOINTS):
        parts.append(
            f'<joint name="j_{name}" type="revolute"><parent link="{parent}"/><child link="{name}"/>'
            f'<origin xyz="{" ".join(map(str, xyz))}"/><axis xyz="{" ".join(map(str, axis))}"/>'
            f'<limit lower="{-limit}" upper="{limit}" effort="10" velocity="6"/></joint>'
        )
    return f'<robot name="arm7">{"".join(parts)}</robot>'


def circle(start: np.ndarray, radius: float, step: float) -> np.ndarray:
    """(N, 4, 4) poses of ``start``'s orientation on a frontal (y-z) circle through its position."""
    count = int(2.0 * np.pi * radius / step)
    angles = np.linspace(0.0, 2.0 * np.pi, count + 1)
    poses = np.repeat(start[None], count + 1, axis=0)
    poses[:, 1, 3] += radius * (np.cos(angles) - 1.0)
    poses[:, 2, 3] += radius * np.sin(angles)
    return poses


def test_streamed_circle_with_measured_state_off_the_goal_does_not_jump() -> None:
    model = RobotModel.from_urdf_string(arm_urdf())
    commander = Commander(model, {"arm": ("chest", "wr_p", "auto")}, {})
    limb = commander.limbs["arm"]
    names = limb.chain.joint_names
    start = np.array([-0.6, 0.6, 0.5, -0.3, 0.4, 0.5, -0.3])
    rng = np.random.default_rng(0)
    commander.measure(dict(zip(names, start)))
    steps = []
    for target in circle(limb.chain.fk(start), 0.13, 0.006):
        result = commander.solve(limb, target, None, commander.seed(limb))
        assert result.success, result.message
        assert not commander.jump_refusal(limb, result.q, target)
        if limb.goal is not None:
            steps.append(np.abs(result.q - limb.goal).max())
        limb.goal = result.q
        off = np.clip(limb.goal + rng.normal(0.0, 0.3, len(names)), limb.chain.lower, limb.chain.upper)
        commander.measure(dict(zip(names, off)))  # the measured arm lags, sags or is blocked
    assert max(steps) < 0.1, f"worst joint step {max(steps):.3f} rad along a 6 mm-step circle"
