"""Walking on a slope: the floor's tilt learnt from the IMU and the support sole's kinematics
(scripted states), and an 8° side slope walked in real MuJoCo (the offline walking loop, no ROS)
only when the stabiliser leans the CoM uphill.

The simulated slope tilts gravity; the IMU reports against gravity, as an AHRS does, and the
stabiliser reads nothing else of the simulator (no base pose).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from walking_helpers import robot

pytest.importorskip("mujoco")

from ik_solvers.resources import package_share_path
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.pushes import Conditions, walks
from ik_solvers.whole_body import StanceSolver, WalkingPatternGenerator
from ik_solvers.whole_body.floor_slope import FloorSlope
from ik_solvers.whole_body.state_estimate import attitude_matrix

URDF = package_share_path("urdf", "humanoid.urdf").read_text()
CLOSED = replace(load_walk_config(), stabilise=True)


@pytest.fixture(scope="module")
def standing():
    """The packaged robot standing as planned: its joints (CoM order) and its first tick."""
    stance = StanceSolver(robot("packaged"))
    generator = WalkingPatternGenerator(stance.model, CLOSED, stance=stance)
    tick = generator.step()
    result = stance.solve(
        tick.left_sole, tick.right_sole, tick.torso_height, tick.torso_rotation, com_target=tick.com
    )
    assert result.success
    return stance, generator, tick, stance.com.configuration(result.positions)


def rolled(angle: float) -> np.ndarray:
    """(w, x, y, z) of a turn by ``angle`` [rad] about x."""
    return np.array([math.cos(angle / 2), math.sin(angle / 2), 0.0, 0.0])


def test_the_floor_tilt_is_read_from_the_imu_and_the_support_sole(standing):
    stance, generator, tick, q = standing
    floor = FloorSlope(stance.com, stance.legs, 0.01, 1.0)
    slope = math.radians(8.0)  # downhill to the robot's left: the upright torso reads a roll of −8°
    still = np.zeros(2)
    reading = (rolled(-slope), np.zeros(3), q, "left", tick.left_sole, 0.0)
    turning = (reading[0], np.array([0.0, 0.8, 0.0]), *reading[2:])
    gravity = floor.update(*turning, still)  # the first reading, set down: taken at once, moving or not
    assert gravity == pytest.approx([0.0, math.sin(slope), -math.cos(slope)], abs=1e-3)
    z_c = generator.geometry.com_height
    wide = np.array([1.0, 1.0])
    assert floor.lean(z_c, 0.0, wide) == pytest.approx([0.0, -z_c * math.tan(slope)], abs=1e-3)  # uphill
    facing_uphill = floor.lean(z_c, -0.5 * math.pi, np.array([0.02, 1.0]))  # heading −y: ahead, clipped
    assert facing_uphill == pytest.approx([0.0, -0.02])
    level = (rolled(0.0), *reading[1:])
    assert floor.update(*level, np.array([0.1, 0.0])) == pytest.approx(gravity)  # tipping, not a slope
    assert floor.update(level[0], turning[1], *level[2:], still) == pytest.approx(gravity)  # turning
    floor.update(rolled(-math.radians(30.0)), np.zeros(3), q, "right", tick.right_sole, 0.0, still)
    assert floor.gravity == pytest.approx(gravity)  # a sole rolled over its edge is not the floor
    assert floor.update(*level, still)[1] == pytest.approx(1.0 / 1.01 * math.sin(slope), rel=0.02)  # filtered
    with pytest.raises(ValueError, match="time constant > 0"):
        FloorSlope(stance.com, stance.legs, 0.01, 0.0)


def pitched(angle: float) -> np.ndarray:
    """(w, x, y, z) of a turn by ``angle`` [rad] about y (positive: nose down)."""
    return np.array([math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0])


def test_a_sole_tipped_over_its_toes_is_leaned_against_beyond_a_deadband(standing):
    stance, generator, tick, q = standing
    floor = FloorSlope(stance.com, stance.legs, 0.01, 1.0)
    floor.update(pitched(0.0), np.zeros(3), q, "left", tick.left_sole, 0.0, np.zeros(2))  # level, learnt
    z_c, dead = generator.geometry.com_height, math.radians(2.0)
    chain = floor.chains["left"]
    legs = chain.fk(q[[stance.com.index(name) for name in chain.joint_names]])[:3, :3]  # sole in torso
    tipped = attitude_matrix(0.0, math.radians(10.0), 0.0)  # the whole robot pitched 10° over its toes
    lean = floor.tip_lean(tipped, legs, tick.left_sole, z_c, dead)
    assert lean == pytest.approx([-z_c * math.tan(math.radians(8.0)), 0.0], abs=1e-4)  # back, beyond 2°
    slight = attitude_matrix(0.0, math.radians(-1.5), 0.0)  # within the deadband
    assert floor.tip_lean(slight, legs, tick.left_sole, z_c, dead) == pytest.approx([0.0, 0.0])


def test_an_8_degree_side_slope_is_walked_only_with_the_lean():
    slope = Conditions(slope=math.radians(8.0))
    assert not walks(URDF, replace(CLOSED, slope_filter=0.0), slope)
    assert walks(URDF, CLOSED, slope)


def test_set_down_upright_on_an_8_degree_incline_it_walks_up():
    """The floor's slope is read at the first tick, standing: learnt only while walking as
    planned, it came after the robot had tipped over its heels (it fell)."""
    assert walks(URDF, CLOSED, Conditions(incline=math.radians(8.0), tilt_time=0.0))
