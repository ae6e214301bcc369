"""The front arms (whole_body/front_arms.py) on scripted DCM errors: which joint, how far, when."""

from __future__ import annotations

import numpy as np
import pytest

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.whole_body.center_of_mass import CenterOfMass
from ik_solvers.whole_body.front_arms import HOLD, LOWER, FrontArms

COM = CenterOfMass(RobotModel.from_urdf_string(package_share_path("urdf", "humanoid.urdf").read_text()))
TRIGGER = 0.015  # [m]


def test_the_shoulder_pitch_joints_are_found_turned_to_move_the_hands_forward():
    arms = FrontArms(COM, TRIGGER, 2.5)
    assert arms.raised == {"l_shoulder_pitch": -2.5, "r_shoulder_pitch": -2.5}  # axis +y: negative is forward
    q = np.zeros(len(COM.joint_names))
    command = arms.update(0.0, True, np.array([-0.1, 0.0]), 0.0, q)
    assert arms.com_shift(q, command, 0.0)[0] > 0.02  # both arms forward carry the CoM forward


def test_the_swing_grows_with_the_error_straight_back_and_comes_down_after_the_hold():
    arms, q = FrontArms(COM, TRIGGER, 2.5), np.zeros(len(COM.joint_names))
    assert arms.update(0.0, True, np.array([-0.01, 0.0]), 0.0, q) == {}  # within the trigger
    assert arms.update(0.0, True, np.array([-0.03, 0.0]), 0.0, q)["l_shoulder_pitch"] == pytest.approx(-1.25)
    assert arms.update(0.01, True, np.array([-0.02, 0.0]), 0.0, q)["l_shoulder_pitch"] == pytest.approx(-1.25)
    assert arms.update(0.02, True, np.array([-0.2, 0.0]), 0.0, q)["r_shoulder_pitch"] == pytest.approx(-2.5)
    later = 0.02 + HOLD + 0.5 * LOWER
    assert arms.update(later, True, np.zeros(2), 0.0, q)["r_shoulder_pitch"] == pytest.approx(-1.25)
    assert arms.update(0.02 + HOLD + LOWER, True, np.zeros(2), 0.0, q)["r_shoulder_pitch"] == pytest.approx(
        0.0
    )
    assert arms.update(0.03 + HOLD + LOWER, True, np.zeros(2), 0.0, q) == {}


def test_errors_not_straight_back_or_not_free_leave_the_arms_alone():
    arms, q = FrontArms(COM, TRIGGER, 2.5), np.zeros(len(COM.joint_names))
    assert (
        arms.update(0.0, True, np.array([-0.05, 0.03]), 0.0, q) == {}
    )  # a push mostly back, partly sideways
    assert arms.update(0.0, True, np.array([0.05, 0.0]), 0.0, q) == {}  # forward
    assert arms.update(0.0, False, np.array([-0.05, 0.0]), 0.0, q) == {}  # double support or the far arm up
    assert arms.update(0.0, True, np.array([0.0, -0.05]), np.pi / 2, q) != {}  # back along a heading of 90°
    assert FrontArms(COM, 0.0, 2.5).update(0.0, True, np.array([-0.1, 0.0]), 0.0, q) == {}  # off
