"""Structure detection: which geometric solver a chain gets, from its geometry alone."""

from __future__ import annotations

import numpy as np
import pytest
from humanoid_factory import ArmDims, HumanoidSpec, humanoid_urdf

from ik_solvers import RobotModel, UnsupportedChainError, make_solver
from ik_solvers.resources import package_share_path
from ik_solvers.solvers.geometric.structure import (
    StructureMismatch,
    arm7_structure,
    axis_lines,
    leg_structure,
    planar_structure,
)


@pytest.fixture(scope="module")
def packaged_xml():
    return package_share_path("urdf", "humanoid.urdf").read_text()


@pytest.fixture(scope="module")
def model(packaged_xml):
    return RobotModel.from_urdf_string(packaged_xml)


def test_axis_lines_pass_through_the_joint_origins(model):
    chain = model.chain("base_link", "l_sole")
    lines = axis_lines(chain)
    np.testing.assert_allclose(lines.directions[0], [0.0, 0.0, 1.0])
    np.testing.assert_allclose(lines.points[0][:2], [0.0, 0.06], atol=1e-12)  # hip yaw axis at y = 0.06


def test_legs_are_legs_and_nothing_else(model):
    for tip in ("l_sole", "r_sole", "l_foot_link"):
        chain = model.chain("base_link", tip)
        leg_structure(chain)
        with pytest.raises(StructureMismatch):
            planar_structure(chain)


def test_arms_are_seven_dof_arms_in_any_axis_order(model):
    arm7_structure(model.chain("base_link", "l_hand"))
    other = HumanoidSpec(arm=ArmDims(shoulder_axes="xyz", wrist_axes="xzy", upper_arm=0.2))
    arm7_structure(RobotModel.from_urdf_string(humanoid_urdf(other)).chain("base_link", "r_wrist"))
    with pytest.raises(StructureMismatch, match="biped leg"):
        leg_structure(model.chain("base_link", "l_shoulder_pitch_link"))


def test_hip_axes_that_miss_each_other_are_refused(packaged_xml):
    xml = packaged_xml.replace(
        '<origin xyz="0 0 -0.035" rpy="0 0 0"/>', '<origin xyz="0 0.01 -0.035" rpy="0 0 0"/>', 1
    )
    chain = RobotModel.from_urdf_string(xml).chain("base_link", "l_sole")
    with pytest.raises(StructureMismatch, match="miss each other"):
        leg_structure(chain)


def test_unsupported_chain_is_refused_with_the_supported_structures(model):
    with pytest.raises(UnsupportedChainError) as refusal:
        make_solver("geometric", model.chain("base_link", "l_knee_link"))
    message = str(refusal.value)
    for words in ("biped leg", "7-DoF arm", "planar two-link", "4 movable joints", "jacobian"):
        assert words in message


def test_six_joint_chain_that_is_not_a_leg_says_what_it_lacks(model):
    with pytest.raises(UnsupportedChainError, match="not a biped leg: .*(not orthogonal|miss|parallel)"):
        make_solver("geometric", model.chain("l_shoulder_pitch_link", "l_hand"))
