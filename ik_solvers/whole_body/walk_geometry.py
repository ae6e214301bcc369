"""The sizes a walk needs, read from the URDF: leg length and reach, sole size, CoM height.

At q = 0 the legs hang straight: the soles' positions in the root frame give the standing height
(root origin over the soles; negative for a root frame on the floor below the ankles) and the
soles' lateral separation; the first leg joint's origin (hip) to the last one's (foot) gives the
leg's straight reach. Walking lowers the root by (1 - ``torso_height_ratio``) times the body's
straight height, the higher of the root's and the hips' heights over the soles; the horizontal
reach left at that height bounds the steps. The CoM height (the cart-table model's z_c) is the
stance solve's at the nominal stance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ik_solvers.limbs.footprint import SoleGeometry
from ik_solvers.model import RobotModel
from ik_solvers.whole_body.stance import StanceSolver
from ik_solvers.whole_body.walk_config import WalkConfig


@dataclass(frozen=True)
class WalkGeometry:
    """Robot sizes for walking [m, rad].

    Attributes:
        soles: the left and right soles' footprints (the walking configuration's sole size, else
            from the feet's collision geometry).
        standing_height: root origin over the soles, legs straight [m] (<= 0: a root on the floor).
        torso_height: the walking root height over the ground [m].
        foot_separation: lateral distance between the sole frames when standing [m].
        leg_length: hip (first leg joint) to sole, legs straight [m].
        com_height: the CoM's height over the ground at the nominal stance (z_c) [m].
        step_height: swing foot lift [m].
        max_step: (3,) largest step: forward distance between the soles, extra lateral
            separation, turn [m, m, rad].
        horizontal_reach: the leg's horizontal reach left at the walking height [m].
    """

    soles: tuple[SoleGeometry, SoleGeometry]
    standing_height: float
    torso_height: float
    foot_separation: float
    leg_length: float
    com_height: float
    step_height: float
    max_step: np.ndarray
    horizontal_reach: float = 0.0

    @classmethod
    def from_model(
        cls, model: RobotModel, config: WalkConfig, stance: StanceSolver | None = None
    ) -> WalkGeometry:
        """Sizes of ``model`` (the legs found in its tree, or those of ``stance``).

        Raises:
            ValueError: the robot cannot stand (no 6-DoF legs, no footprint and no sole size in
                ``config``), or the nominal stance cannot be solved — the message says which.
        """
        stance = stance or StanceSolver(model, soles=_configured_soles(config))
        soles = _configured_soles(config) or stance.soles
        if soles is None:
            raise ValueError(f"robot '{model.name}' has no footprint to walk on: {stance.footprint_problem}")
        left, right = stance.legs.chains
        left_sole, right_sole = (chain.fk(np.zeros(chain.n)) for chain in (left, right))
        standing = -0.5 * float(left_sole[2, 3] + right_sole[2, 3])
        hip = left.joint_frames(np.zeros(left.n))
        leg_length = float(hip[0, 2, 3] - left_sole[2, 3])
        lowering = (1.0 - config.torso_height_ratio) * max(standing, leg_length)
        torso_height = standing - lowering
        reach = float(np.linalg.norm(hip[-1, :3, 3] - hip[0, :3, 3]))
        drop = reach - lowering
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
            soles,
            standing,
            torso_height,
            separation,
            leg_length,
            com_height,
            config.step_height_ratio * leg_length,
            max_step,
            horizontal,
        )


def _configured_soles(config: WalkConfig) -> tuple[SoleGeometry, SoleGeometry] | None:
    """Rectangles of the configuration's sole size, or None when it gives none."""
    if config.sole_size is None:
        return None
    sole = SoleGeometry.rectangle(*config.sole_size)
    return sole, sole


def _com_height(stance: StanceSolver, separation: float, torso_height: float) -> float:
    left, right = np.eye(4), np.eye(4)
    left[1, 3], right[1, 3] = 0.5 * separation, -0.5 * separation
    result = stance.solve(left, right, torso_height)
    stance.reset()
    if not result.success:
        raise ValueError(
            f"the nominal stance (soles {separation:.3f} m apart, root {torso_height:.3f} m over them) does "
            f"not solve: {result.message}; a lower torso_height_ratio bends the knees further"
        )
    return float(result.com[2])
