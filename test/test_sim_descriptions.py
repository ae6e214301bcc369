"""The simulator loads descriptions as makers publish them: comments, single quotes, xacro,
package:// meshes in STL (binary and ASCII), OBJ and COLLADA, a meshdir of the URDF's own — real
xacro, real MuJoCo. The missing or unreadable mesh is named."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from description_data import (
    MAKER_BOT,
    MAKER_BOT_MUJOCO,
    MAKER_BOT_XACRO,
    OP3_JOINTS,
    OP3_XACRO,
    without_geometry,
)

pytest.importorskip("mujoco")

from ik_solvers import RobotModel
from ik_solvers.description import DescriptionError, RobotDescription, load_description
from ik_solvers.sim.mujoco_robot import MujocoRobot, ServoConfig

COMMENTED_SINGLE_QUOTED = """<?xml version='1.0'?>
<robot name='hinge'>
  <!-- <link name="world"/>
  <joint name="world_fixed" type="fixed"><parent link="world"/><child link="base"/></joint> -->
  <link name='base'>
    <collision><geometry><box size='0.1 0.1 0.1'/></geometry></collision>
    <inertial><mass value='1'/><inertia ixx='0.01' ixy='0' ixz='0' iyy='0.01' iyz='0' izz='0.01'/></inertial>
  </link>
  <link name='arm'>
    <inertial><origin xyz='0.1 0 0'/><mass value='0.5'/>
      <inertia ixx='0.001' ixy='0' ixz='0' iyy='0.001' iyz='0' izz='0.001'/></inertial>
  </link>
  <joint name='shoulder' type='revolute'>
    <parent link='base'/><child link='arm'/><axis xyz='0 1 0'/>
    <limit lower='-1' upper='1' effort='5' velocity='2'/>
  </joint>
</robot>"""


def test_commented_out_links_and_single_quotes_load():
    robot = MujocoRobot(COMMENTED_SINGLE_QUOTED, ServoConfig(floating_base=True))
    assert robot.joint_names == ("shoulder",)
    base = robot.model.body("base")  # the root, found from the tree: 'world' is a comment
    assert robot.model.jnt_type[robot.model.body_jntadr[base.id]] == 0  # hangs from the free joint


def test_a_floating_robot_without_collision_geometry_is_refused_with_the_reason():
    urdf = without_geometry(COMMENTED_SINGLE_QUOTED)
    with pytest.raises(ValueError, match="floating base needs collision geometry .* has none"):
        MujocoRobot(urdf, ServoConfig(floating_base=True))


def test_xacro_with_package_meshes_in_four_formats_stands_on_its_feet():
    description = load_description(MAKER_BOT_XACRO, {"leg_length": "0.25"})
    robot = MujocoRobot(description, ServoConfig(floating_base=True))
    meshes = sorted(robot.model.mesh(i).name for i in range(robot.model.nmesh))
    assert meshes == ["mesh0_torso", "mesh1_thigh", "mesh2_shin_ascii", "mesh3_foot"]
    start = robot.base_pose()[2]
    robot.step(500)  # 1 s
    assert abs(robot.base_pose()[2] - start) < 0.01  # the foot meshes carry it on the floor
    assert np.isclose(start, 0.06 + 2 * 0.25 + 0.03 + 0.01, atol=1e-3)  # hip, legs, foot box


def test_a_self_contained_description_needs_neither_its_file_nor_its_packages(tmp_path):
    folder = tmp_path / "with space"
    shutil.copytree(MAKER_BOT, folder / "maker_bot_description")
    xml = load_description(
        folder / "maker_bot_description" / "urdf" / "maker_bot.urdf.xacro"
    ).self_contained()
    assert "package://" not in xml and "file:///" in xml
    assert MujocoRobot(xml).model.nmesh == 4  # text only: meshes found through their file:// URIs


def test_a_meshdir_the_urdf_sets_is_applied_once():
    robot = MujocoRobot(load_description(MAKER_BOT_MUJOCO))
    assert robot.model.nmesh == 2 and robot.model.ngeom == 3  # floor, torso (visual kept), foot


def test_a_missing_mesh_is_named_with_where_it_was_looked_for():
    description = load_description(OP3_XACRO)
    with pytest.raises(DescriptionError) as caught:
        MujocoRobot(description)
    message = str(caught.value)
    assert "mesh 'package://op3_description/meshes/body.stl' of link 'body_link' not found" in message
    assert str(OP3_XACRO.parent.parent / "meshes" / "body.stl") in message


def test_an_unresolved_package_is_named(tmp_path):
    urdf = COMMENTED_SINGLE_QUOTED.replace(
        "<link name='arm'>",
        "<link name='arm'><collision><geometry>"
        "<mesh filename='package://lost_description/meshes/foot.stl'/></geometry></collision>",
    )
    with pytest.raises(
        DescriptionError, match="mesh 'package://lost_description/meshes/foot.stl'.*'lost_description' not"
    ):
        MujocoRobot(RobotDescription(urdf, tmp_path / "robot.urdf"))


def test_an_unreadable_mesh_is_named(tmp_path):
    (tmp_path / "broken.dae").write_text("<COLLADA>not a mesh")
    urdf = COMMENTED_SINGLE_QUOTED.replace(
        "<link name='arm'>",
        "<link name='arm'><collision><geometry><mesh filename='broken.dae'/></geometry></collision>",
    )
    with pytest.raises(
        DescriptionError, match=r"mesh 'broken.dae' \(.*broken.dae\) cannot be converted for MuJoCo"
    ):
        MujocoRobot(RobotDescription(urdf, tmp_path / "robot.urdf"))


def test_op3_loads_into_mujoco_with_its_joints_and_limits():
    """The OP3's meshes are not in the test data (see its README): its geometry is taken out."""
    urdf = without_geometry(load_description(OP3_XACRO).xml)
    robot = MujocoRobot(urdf)
    model = RobotModel.from_urdf_string(urdf)
    assert len(robot.joint_names) == OP3_JOINTS
    for name, lower, upper in zip(robot.joint_names, robot.lower, robot.upper):
        assert np.isclose(lower, model.joints[name].lower) and np.isclose(upper, model.joints[name].upper)
    robot.step(100)
    assert np.isfinite(robot.joint_state()[0]).all()
