"""Robots and a walk driver shared by the walking tests: velocity segments, one tick at a time."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from humanoid_factory import ArmDims, HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.whole_body import StanceSolver, WalkingPatternGenerator
from ik_solvers.whole_body.walking_pattern import WalkTick

URDF_PATH = package_share_path("urdf", "humanoid.urdf")
# Longer legs, wider hips, a heavier torso and heavier limbs than the packaged robot.
VARIANT = HumanoidSpec(
    leg=LegDims(thigh=0.26, shank=0.25, w=0.03, hip_y=0.07, sole_z=-0.05),
    arm=ArmDims(upper_arm=0.18),
    torso_mass=3.5,
    mass_scale=1.5,
)


def robot(name: str) -> RobotModel:
    """'packaged' or 'variant'."""
    if name == "packaged":
        return RobotModel.from_urdf_file(URDF_PATH)
    return RobotModel.from_urdf_string(humanoid_urdf(VARIANT))


@dataclass
class Walk:
    """Every tick of a walk and, with a stance solver, every stance result."""

    ticks: list[WalkTick] = field(default_factory=list)
    stances: list = field(default_factory=list)
    stance_solver: StanceSolver | None = None


def drive(
    generator: WalkingPatternGenerator,
    segments: list[tuple[tuple[float, float, float], float]],
    stance: StanceSolver | None = None,
    settle: float = 6.0,
) -> Walk:
    """Each (command, seconds) in turn, then a zero command until the robot stands (at most
    ``settle`` s more); each tick through ``stance`` when given."""
    walk = Walk(stance_solver=stance)
    dt = generator.config.dt

    def tick() -> WalkTick:
        result = generator.step()
        walk.ticks.append(result)
        if stance is not None:
            walk.stances.append(
                stance.solve(
                    result.left_sole,
                    result.right_sole,
                    result.torso_height,
                    result.torso_rotation,
                    com_target=result.com,
                )
            )
        return result

    for command, seconds in segments:
        generator.set_command(*command)
        for _ in range(round(seconds / dt)):
            tick()
    generator.set_command(0.0, 0.0, 0.0)
    for _ in range(round(settle / dt)):
        if not tick().walking:
            break
    return walk


def midpoint(tick: WalkTick) -> np.ndarray:
    """(x, y) between the soles [m]."""
    return 0.5 * (tick.left_sole[:2, 3] + tick.right_sole[:2, 3])
