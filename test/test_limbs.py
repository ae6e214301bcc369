"""Limbs, sole frames and footprints found from the tree and the collision geometry, on humanoids
described the way other makers describe them (test/maker_humanoids.py): other link and joint
names, no ``base_link``, no sole frames, feet of boxes, cylinders, spheres and meshes, arms of 3, 5
and 7 joints, a head, a root frame on the floor."""

from __future__ import annotations

import re

import numpy as np
import pytest
from maker_humanoids import DESCRIPTIONS, FOOT_CENTRE, FOOT_SIZE, SOLE_Z, MakerSpec, maker_urdf

from ik_solvers import RobotModel
from ik_solvers.limbs import find_body, sole_geometry
from ik_solvers.limbs.tree import zero_pose
from ik_solvers.resources import package_share_path
from ik_solvers.whole_body import StanceSolver, WalkConfig, WalkingPatternGenerator


def body_of(**changes):
    return find_body(RobotModel.from_urdf_string(maker_urdf(MakerSpec(**changes))))


def test_packaged_humanoid_keeps_its_own_chains_and_sole_frames():
    body = find_body(RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")))
    assert body.chains == {
        "left_leg": ("base_link", "l_sole"),
        "right_leg": ("base_link", "r_sole"),
        "left_arm": ("base_link", "l_wrist"),
        "right_arm": ("base_link", "r_wrist"),
    }
    assert body.added_soles == () and body.whole_body_problem == ""
    assert [limb.end_link for limb in body.limbs.others] == []  # its head is fixed: no limb


@pytest.mark.parametrize("arm_joints", [3, 5, 7])
def test_legs_arms_and_head_are_found_without_names(arm_joints):
    body = body_of(arm_joints=arm_joints)
    left, right = body.legs
    assert (left.end_link, right.end_link) == ("l_foot", "r_foot")
    assert left.joint_names[0] == "LHipYaw" and right.joint_names[-1] == "RAnkleRoll"
    assert [arm.name for arm in body.limbs.arms] == ["left_arm", "right_arm"]
    assert [len(arm.joint_names) for arm in body.limbs.arms] == [arm_joints, arm_joints]
    assert body.chains["left_arm"] == ("torso", "l_hand") and body.chains["right_arm"] == ("torso", "r_hand")
    assert [(limb.end_link, limb.joint_names) for limb in body.limbs.others] == [
        ("head", ("HeadYaw", "HeadPitch"))
    ]


@pytest.mark.parametrize("arm_joints", [3, 7])
def test_hands_with_fingers_end_the_arms_at_the_palm(arm_joints):
    """The fingers' branches make the hand a split; the arm ends there, the fingers are no limbs."""
    body = body_of(fingers=3, arm_joints=arm_joints)
    left, right = body.limbs.arms
    assert (left.end_link, right.end_link) == ("l_hand", "r_hand")
    assert [len(arm.joint_names) for arm in (left, right)] == [arm_joints, arm_joints]
    assert [limb.end_link for limb in body.limbs.others] == ["head"]
    assert body.whole_body_problem == ""
    if arm_joints == 3:  # position only: the tip is the hand's centre of mass, which the elbow moves
        assert body.chains["left_arm"] == ("torso", "l_hand_tip")


def test_legs_with_a_toe_joint_end_at_the_foot():
    body = body_of(toe=True)
    left, right = body.legs
    assert (left.end_link, right.end_link) == ("l_foot", "r_foot")
    assert left.joint_names[-1] == "LAnkleRoll" and len(right.joint_names) == 6
    assert body.chains["left_leg"] == ("torso", "l_foot_sole") and body.whole_body_problem == ""
    assert sole_geometry(body.model, "l_foot_sole").size == pytest.approx(FOOT_SIZE[:2])


def test_a_root_on_the_floor_gives_the_legs_the_pelvis_and_the_arms_the_torso():
    body = body_of(root_on_floor=True)
    assert body.model.root == "base_footprint"
    assert body.chains["left_leg"] == ("pelvis", "l_foot_sole")
    assert body.chains["left_arm"] == ("torso", "l_hand")
    assert abs(zero_pose(body.model, "l_foot_sole")[2, 3]) < 1e-12  # the soles on the root's floor


def test_a_foot_without_a_sole_frame_gets_one_under_the_ankle_on_its_lowest_point():
    body = body_of()
    assert body.added_soles == ("l_foot_sole", "r_foot_sole")
    for sole, foot in zip(body.sole_links, ("l_foot", "r_foot")):
        ankle, pose = zero_pose(body.model, foot), zero_pose(body.model, sole)
        np.testing.assert_allclose(pose[:2, 3], ankle[:2, 3], atol=1e-12)  # below the ankle
        assert pose[2, 3] == pytest.approx(ankle[2, 3] + SOLE_Z)  # the foot box's bottom
        np.testing.assert_allclose(pose[:3, :3], np.eye(3), atol=1e-12)  # x forward along the foot


def test_the_sole_x_axis_runs_along_a_foot_turned_in_the_description():
    """The foot plate's collision box turned 0.3 rad about z in its link: the sole turns with it."""
    urdf = re.sub(
        r'(<collision>\s*<origin xyz="0.02 0 -0.03")/>(\s*<geometry>\s*<box size="0.16 0.08 0.02"/>)',
        r'\1 rpy="0 0 0.3"/>\2',
        maker_urdf(MakerSpec()),
    )
    body = find_body(RobotModel.from_urdf_string(urdf))
    x_axis = zero_pose(body.model, "l_foot_sole")[:3, 0]
    np.testing.assert_allclose(x_axis, (np.cos(0.3), np.sin(0.3), 0.0), atol=1e-9)


FOOTPRINTS = {  # foot → (length, width) of the footprint [m], centre x [m] in the sole frame
    "box": ((0.16, 0.08), 0.02),
    "cylinder": ((0.08, 0.08), 0.02),
    "spheres": ((0.14, 0.06), 0.02),  # between the four spheres' lowest points
}


@pytest.mark.parametrize("foot", list(FOOTPRINTS))
def test_footprint_comes_from_the_feet_collision_geometry(foot):
    body = body_of(foot=foot)
    (length, width), centre = FOOTPRINTS[foot]
    for sole in body.sole_links:
        footprint = sole_geometry(body.model, sole)
        np.testing.assert_allclose(footprint.size, (length, width), atol=1e-3)
        np.testing.assert_allclose(footprint.center, (centre, 0.0), atol=1e-9)
    if foot == "cylinder":  # the disc's area, within the sampling of its rim
        x, y = footprint.polygon.T
        area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
        assert area == pytest.approx(np.pi * 0.04**2, rel=0.01)


def test_mesh_feet_give_the_footprint_of_the_vertices_on_the_sole_plane():
    """The STL plate's top face is 2 cm shorter (a bevelled toe): the footprint is its bottom face."""
    body = find_body(RobotModel.from_urdf_file(DESCRIPTIONS / "mesh_feet.urdf"))
    footprint = sole_geometry(body.model, body.sole_links[0])
    np.testing.assert_allclose(footprint.size, FOOT_SIZE[:2], atol=1e-9)
    np.testing.assert_allclose(footprint.center, (FOOT_CENTRE[0], 0.0), atol=1e-9)


def test_a_point_foot_is_refused_with_the_setting_that_gives_the_size():
    body = body_of(foot="sphere")
    with pytest.raises(ValueError, match=r"point or a line.*walk.sole_length, walk.sole_width"):
        sole_geometry(body.model, body.sole_links[0])
    walk = WalkingPatternGenerator(body.model, WalkConfig(sole_length=0.15, sole_width=0.07))
    np.testing.assert_allclose(walk.geometry.soles[0].size, (0.15, 0.07))


def test_feet_without_collision_geometry_leave_the_legs_for_ik_but_say_why_they_cannot_stand():
    body = body_of(foot="none")
    assert body.chains["left_leg"] == ("torso", "l_foot") and body.sole_links is None
    assert "no <collision> geometry" in body.whole_body_problem
    with pytest.raises(ValueError, match="cannot stand: foot 'l_foot' has no sole frame"):
        StanceSolver(body.model)


def test_a_robot_without_6_dof_legs_is_refused_with_what_it_has():
    urdf = maker_urdf(MakerSpec())
    for side in "LR":  # the ankle roll joints fixed: 5-DoF legs
        urdf = re.sub(
            rf'<joint name="{side}AnkleRoll" type="revolute">',
            f'<joint name="{side}AnkleRoll" type="fixed">',
            urdf,
        )
    body = find_body(RobotModel.from_urdf_string(urdf))
    assert body.chains["left_leg"] == ("torso", "l_foot") and body.sole_links is None  # still chains for IK
    assert [len(arm.joint_names) for arm in body.limbs.arms] == [7, 7]  # not taken for arms
    assert "6 movable joints" in body.whole_body_problem and "(5 joints)" in body.whole_body_problem
    with pytest.raises(ValueError, match="cannot stand: no 6-DoF legs"):
        StanceSolver(body.model)


def test_a_sole_frame_the_maker_gave_is_kept_and_the_walk_takes_the_configured_sole_size():
    """Feet without collision geometry but with sole frames 4 cm below the ankles."""
    frames = "".join(
        f'<link name="{side}_sole_frame"/><joint name="{side}_sole_joint" type="fixed">'
        f'<parent link="{side}_foot"/><child link="{side}_sole_frame"/><origin xyz="0 0 {SOLE_Z}"/></joint>'
        for side in "lr"
    )
    urdf = maker_urdf(MakerSpec(foot="none")).replace("</robot>", frames + "</robot>")
    body = find_body(RobotModel.from_urdf_string(urdf))
    assert body.sole_links == ("l_sole_frame", "r_sole_frame") and body.added_soles == ()
    with pytest.raises(ValueError, match="no <collision> geometry on foot 'l_foot'.*walk.sole_length"):
        sole_geometry(body.model, "l_sole_frame")
    walk = WalkingPatternGenerator(body.model, WalkConfig(sole_length=0.16, sole_width=0.08))
    np.testing.assert_allclose(np.ptp(walk.geometry.soles[1].polygon, axis=0), (0.16, 0.08))


def test_a_root_on_the_floor_walks_lowered_with_the_hips():
    """The old rule (the root at torso_height_ratio of its own height over the soles, here 0 m)
    left a straight-legged stance nothing could solve: refused with advice that could not help."""
    body = body_of(root_on_floor=True)
    geometry = WalkingPatternGenerator(body.model, WalkConfig(torso_height_ratio=0.9)).geometry
    assert geometry.standing_height == pytest.approx(0.0, abs=1e-12)
    assert geometry.torso_height == pytest.approx(-0.1 * geometry.leg_length)  # below the floor
    assert geometry.leg_length == pytest.approx(0.505) and 0.4 < geometry.com_height < 0.5


def test_root_frame_turned_from_rep103_is_refused_for_standing_with_the_reason():
    # as Poppy Humanoid's SolidWorks export leaves it: the root's x points to the robot's left,
    # so the feet lie side by side along x and left and right cannot be told from y
    xml = package_share_path("urdf", "humanoid.urdf").read_text()
    turned = (
        '<link name="cad_root"/><joint name="cad_turn" type="fixed"><parent link="cad_root"/>'
        '<child link="base_link"/><origin xyz="0 0 0" rpy="0 0 1.5707963267948966"/></joint></robot>'
    )
    body = find_body(RobotModel.from_urdf_string(xml.replace("</robot>", turned)))
    assert (
        "the feet 'l_foot_link' and 'r_foot_link' lie 160 mm apart along the root's x"
        in body.whole_body_problem
    )
    assert "must be REP-103 (x forward, y left, z up)" in body.whole_body_problem
    assert body.sole_links is None
