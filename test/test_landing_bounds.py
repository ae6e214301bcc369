"""The landing's bounds on scripted states: the regular bound and the longer recovery step.

Pure geometry (:mod:`ik_solvers.whole_body.landing_bounds`), then the stabiliser on a scripted
robot tipping backwards mid-swing (the joints where the stance solve put them, the IMU pitched).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_stabiliser import LEVEL, _joints, tilted, walking  # noqa: F401 - walking: a fixture

from ik_solvers.whole_body.landing_bounds import bounded_offset, recovery_landing

SUPPORT = np.eye(4)  # the support sole at the origin, facing +x
PLANNED = np.array([0.17, -0.16])  # the right foot's planned landing, a step ahead


def test_an_offset_within_the_bound_is_kept():
    assert recovery_landing(PLANNED, np.array([-0.05, 0.02]), SUPPORT, 0.11, 0.2) == pytest.approx(
        PLANNED + [-0.05, 0.02]
    )


def test_without_recovery_reach_the_offset_is_scaled_to_the_bound():
    offset = np.array([-0.4, 0.0])
    assert recovery_landing(PLANNED, offset, SUPPORT, 0.11, 0.0) == pytest.approx(PLANNED + [-0.11, 0.0])
    assert np.hypot(*bounded_offset(np.array([0.3, 0.4]), 0.1)) == pytest.approx(0.1)


def test_a_push_back_lands_behind_the_support_sole_within_reach():
    landing = recovery_landing(PLANNED, np.array([-0.6, 0.05]), SUPPORT, 0.11, 0.2)
    assert landing[0] == pytest.approx(-0.2)  # behind the support sole, as far as the leg reaches
    assert landing[1] == pytest.approx(PLANNED[1] + 0.05)  # sideways as asked, within the bound


def test_a_push_forward_lands_at_least_as_far_as_the_regular_bound():
    landing = recovery_landing(PLANNED, np.array([0.4, -0.3]), SUPPORT, 0.11, 0.2)
    assert landing[0] == pytest.approx(PLANNED[0] + 0.11)  # beyond the 0.2 around the sole
    assert landing[1] == pytest.approx(PLANNED[1] - 0.11)  # sideways within the bound


def test_a_robot_tipping_back_mid_swing_steps_behind_its_support(walking):  # noqa: F811
    generator, stance, stabiliser, tick, _ = walking
    step = generator.planner.phase_at(tick.time).step
    stabiliser.recovery_reach = 0.9 * generator.geometry.horizontal_reach  # recovery_reach_ratio 0.9
    for _ in range(8):
        tick = generator.step()
        correction = stabiliser.update(tick, tilted(0.0, -0.25), np.zeros(3), _joints(stance, tick))
    assert correction.dcm_error[0] < -0.03
    support = tick.right_sole if step.side == "left" else tick.left_sole
    landed = generator.planner.phase_at(tick.time).step.end
    behind = landed[0] - support[0, 3]
    assert -correction.landing_moved[0] > stabiliser.max_adjust + 0.01  # beyond the regular bound
    assert -stabiliser.recovery_reach - 1e-9 <= behind < 0.0  # behind the support sole, within reach
