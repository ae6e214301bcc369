"""The sizes a walk needs, read from the URDF: leg length and reach, sole size, CoM height.

At q = 0 the legs hang straight: the soles' positions in the torso frame give the standing height
(torso origin over the soles) and the soles' lateral separation; the first leg joint's origin
(hip) to the last one's (foot) gives the leg's straight reach. Walking lowers the torso to
``torso_height_ratio`` of the standing height; the horizontal reach left at that height bounds the
steps. The CoM height (the cart-table model's z_c) is the stance solve's at the nominal stance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.model import RobotModel
from ik_solvers.whole_body.sole import SoleGeometry
from ik_solvers.whole_body.stance import StanceSolver
from ik_solvers.whole_body.walk_config import WalkConfig


@dataclass(frozen=True)
class WalkGeometry:
    """Robot sizes for walking [m, rad].

    Attributes:
        soles: the left and right soles' footprints (from their collision boxes).
        standing_height: torso origin over the soles, legs straight [m].
        torso_height: the walking torso height over the ground [m].
        foot_separation: lateral distance between the sole frames when standing [m].
        leg_length: hip (first leg joint) to sole, legs straight [m].
        com_height: the CoM's height over the ground at the nominal stance (z_c) [m].
        step_height: swing foot lift [m].
        max_step: (3,) largest step: forward distance between the soles, extra lateral
            separation, turn [m, m, rad].
    """

    soles: tuple[SoleGeometry, SoleGeometry]
    standing_height: float
    torso_height: float
    foot_separation: float
    leg_length: float
    com_height: float
    step_height: float
    max_step: np.ndarray

    @classmethod
    def from_model(
        cls, model: RobotModel, config: WalkConfig, stance: StanceSolver | None = None
    ) -> WalkGeometry:
        """Sizes of ``model`` (its ``l_sole`` / ``r_sole`` legs, or those of ``stance``).

        Raises:
            ValueError: the nominal stance cannot be solved (legs too short for the torso
                height, no sole collision box) — the message says which.
        """
        stance = stance or StanceSolver(model)
        left, right = stance.legs.chains
        left_sole, right_sole = (chain.fk(np.zeros(chain.n)) for chain in (left, right))
        standing = -0.5 * float(left_sole[2, 3] + right_sole[2, 3])
        torso_height = config.torso_height_ratio * standing
        hip = left.joint_frames(np.zeros(left.n))
        leg_length = float(hip[0, 2, 3] - left_sole[2, 3])
        reach = float(np.linalg.norm(hip[-1, :3, 3] - hip[0, :3, 3]))
        drop = reach - (standing - torso_height)
        horizontal = float(np.sqrt(max(reach * reach - drop * drop, 0.0)))
        yaw_limit = min(abs(left.lower[0]), abs(left.upper[0]), abs(right.lower[0]), abs(right.upper[0]))
        max_step = np.array(
            [
                2 * config.reach_ratio * horizontal,
                config.reach_ratio * horizontal,
                min(config.max_step_yaw, 0.5 * yaw_limit),
            ]
        )
        separation = float(left_sole[1, 3] - right_sole[1, 3])
        com_height = _com_height(stance, separation, torso_height)
        return cls(
            stance.soles,
            standing,
            torso_height,
            separation,
            leg_length,
            com_height,
            config.step_height_ratio * leg_length,
            max_step,
        )


def _com_height(stance: StanceSolver, separation: float, torso_height: float) -> float:
    left, right = np.eye(4), np.eye(4)
    left[1, 3], right[1, 3] = 0.5 * separation, -0.5 * separation
    result = stance.solve(left, right, torso_height)
    stance.reset()
    if not result.success:
        raise ValueError(
            f"the nominal stance (soles {separation:.3f} m apart, torso {torso_height:.3f} m high) does not "
            f"solve: {result.message}; lower torso_height_ratio"
        )
    return float(result.com[2])
