"""FrameTree: link poses at a joint state, and poses moved between link frames."""

from __future__ import annotations

import numpy as np
import pytest
from humanoid_factory import HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers import RobotModel
from ik_solvers.frames import FrameTree, UnknownFrameError
from ik_solvers.resources import package_share_path

MODEL = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))


def test_a_link_pose_follows_the_joint_state():
    tree, chain = FrameTree(MODEL), MODEL.chain("base_link", "l_wrist")
    q = np.clip(np.full(chain.n, 0.3), chain.lower, chain.upper)
    pose = tree.root_pose("l_wrist", dict(zip(chain.joint_names, q)))
    np.testing.assert_allclose(pose, chain.fk(q), atol=1e-12)


def test_a_pose_in_one_limb_frame_is_moved_into_another_through_the_current_state():
    tree = FrameTree(MODEL)
    leg, arm = MODEL.chain("base_link", "l_sole"), MODEL.chain("base_link", "r_wrist")
    rng = np.random.default_rng(5)
    state = {
        **dict(zip(leg.joint_names, leg.random_configurations(1, rng)[0])),
        **dict(zip(arm.joint_names, arm.random_configurations(1, rng)[0])),
    }
    pose_in_sole = np.eye(4)
    pose_in_sole[:3, 3] = (0.1, -0.2, 0.3)
    moved = tree.transform(pose_in_sole, "l_sole", "r_wrist", state)
    in_base = leg.fk(np.array([state[n] for n in leg.joint_names])) @ pose_in_sole
    expected = np.linalg.solve(arm.fk(np.array([state[n] for n in arm.joint_names])), in_base)
    np.testing.assert_allclose(moved, expected, atol=1e-12)


def test_joints_missing_from_the_state_sit_at_zero_clipped_into_their_limits():
    chain = MODEL.chain("base_link", "l_sole")
    rest = np.clip(np.zeros(chain.n), chain.lower, chain.upper)
    np.testing.assert_allclose(FrameTree(MODEL).root_pose("l_sole", {}), chain.fk(rest), atol=1e-12)


def test_an_unknown_frame_is_refused_with_close_names():
    with pytest.raises(UnknownFrameError, match="did you mean 'l_sole'"):
        FrameTree(MODEL).root_pose("l_sloe", {})


def test_frames_of_another_robot_come_from_its_own_urdf():
    model = RobotModel.from_urdf_string(humanoid_urdf(HumanoidSpec(leg=LegDims(thigh=0.31, w=0.05))))
    chain = model.chain(model.root, "r_sole")
    q = np.clip(np.full(chain.n, -0.2), chain.lower, chain.upper)
    pose = FrameTree(model).root_pose("r_sole", dict(zip(chain.joint_names, q)))
    np.testing.assert_allclose(pose, chain.fk(q), atol=1e-12)
