"""The sizes a walk needs, read from the URDF: leg length and reach, sole size, CoM height.

At q = 0 the legs hang straight: the soles' positions in the root frame give the standing height
(root origin over the soles; negative for a root frame on the floor below the ankles) and the
soles' lateral separation; the first leg joint's origin (hip) to the last one's (foot) gives the
leg's straight reach. Walking lowers the root by (1 - ``torso_height_ratio``) times the body's
straight height, the higher of the root's and the hips' heights over the soles; the horizontal
reach left at that height bounds the steps. The CoM height (the cart-table model's z_c) is the
stance solve's at the nominal stance.

The soles walk as far apart as they stand unless a single support there is out of the legs'
reach: the CoM over the supporting sole's centre (where the plan's ZMP goes), the other sole
lifted by the step height beside it. Heavy legs make the torso sway past the sole's centre to
bring the whole CoM over it, and on wide hips
the lifted leg then leans further out than its ankle roll turns (the Unitree H1-2's 0.26 rad:
139 of its offline walk's stance solves found no stance, the swing foot froze, then jumped 0.27 m
in 0.1 s and the support sole twisted 4 degrees). Then the walk takes the widest separation,
down to two sole widths, at which that stance solves; the standing separation stays the walk's
start and the first steps move in.
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
        foot_separation: lateral distance between the sole frames when walking [m] (module
            docstring).
        leg_length: hip (first leg joint) to sole, legs straight [m].
        com_height: the CoM's height over the ground at the nominal stance (z_c) [m].
        step_height: swing foot lift [m].
        max_step: (3,) largest step: forward distance between the soles, extra lateral
            separation, turn [m, m, rad].
        horizontal_reach: the leg's horizontal reach left at the walking height [m].
        standing_separation: lateral distance between the sole frames standing, legs straight
            [m] (0: ``foot_separation``).
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
    standing_separation: float = 0.0

    @property
    def start_separation(self) -> float:
        """Lateral distance between the sole frames standing, legs straight [m] (the walk's start)."""
        return self.standing_separation or self.foot_separation

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
        standing_separation = float(left_sole[1, 3] - right_sole[1, 3])
        step_height = config.step_height_ratio * leg_length
        width = float(min(sole.size[1] for sole in soles))
        separation = SingleSupport(stance, soles, torso_height, step_height).widest(
            standing_separation, 2.0 * width
        )
        com_height = _com_height(stance, separation, torso_height)
        return cls(
            soles,
            standing,
            torso_height,
            separation,
            leg_length,
            com_height,
            step_height,
            max_step,
            horizontal,
            standing_separation,
        )


@dataclass(frozen=True)
class SingleSupport:
    """The check of the module docstring: a single support whose CoM lies over the supporting
    sole's centre, the other sole ``lift`` [m] up, the root ``torso_height`` [m] high."""

    stance: StanceSolver
    soles: tuple[SoleGeometry, SoleGeometry]
    torso_height: float
    lift: float

    SEARCH_STEPS = 8  # bisections: the separation to 1/256 of its range

    def solves(self, separation: float) -> bool:
        """Whether that stance solves on either sole, the soles ``separation`` [m] apart."""
        try:
            return all(self._solves(separation, side) for side in (1.0, -1.0))
        finally:
            self.stance.reset()

    def _solves(self, separation: float, side: float) -> bool:
        support, lifted = np.eye(4), np.eye(4)
        support[1, 3], lifted[1, 3], lifted[2, 3] = (
            0.5 * side * separation,
            -0.5 * side * separation,
            self.lift,
        )
        geometry = self.soles[0 if side > 0 else 1]
        target = geometry.center_in_world(support)
        left, right = (support, lifted) if side > 0 else (lifted, support)
        return self.stance.solve(left, right, self.torso_height, com_target=target).success

    def widest(self, standing: float, narrowest: float) -> float:
        """The widest separation in [``narrowest``, ``standing``] [m] at which it solves (bisection);
        ``standing`` when it solves there or nowhere in that range."""
        if narrowest >= standing or self.solves(standing) or not self.solves(narrowest):
            return standing
        low, high = narrowest, standing
        for _ in range(self.SEARCH_STEPS):
            middle = 0.5 * (low + high)
            low, high = (middle, high) if self.solves(middle) else (low, middle)
        return low


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
