"""Robot descriptions as makers publish them (ik_solvers.description): xacro, comments, quoting,
package:// and file:// URIs — real xacro, real XML parsing, the real ament index."""

from __future__ import annotations

import numpy as np
import pytest
from description_data import (
    DESCRIPTIONS,
    MAKER_BOT,
    MAKER_BOT_XACRO,
    OP3,
    OP3_JOINTS,
    OP3_LEFT_LEG,
    OP3_XACRO,
)

from ik_solvers import RobotModel
from ik_solvers.description import (
    DescriptionError,
    RobotDescription,
    description_from_string,
    load_description,
    parse_xacro_arguments,
    root_link,
)
from ik_solvers.description.xml_tree import robot_element
from ik_solvers.model import ModelError

COMMENTED = """<?xml version='1.0'?>
<robot name='commented'>
  <!-- <link name="world"/>
  <joint name="world_fixed" type="fixed"><parent link="world"/><child link="torso"/></joint> -->
  <link name='torso'/>
  <link name='leg'/>
  <joint name='hip' type='revolute'>
    <parent link='torso'/><child link='leg'/>
    <axis xyz='0 1 0'/><limit lower='-1' upper='1' effort='5' velocity='2'/>
  </joint>
</robot>"""


def test_op3_xacro_expands_and_loads_into_the_robot_model():
    model = RobotModel.from_urdf_file(OP3_XACRO)
    movable = [j for j in model.joints.values() if j.type != "fixed"]
    assert model.root == "body_link" and len(movable) == OP3_JOINTS
    assert "world" not in model.links  # commented out in the maker's file
    leg = model.chain("body_link", "l_ank_roll_link")
    assert leg.joint_names == OP3_LEFT_LEG
    assert np.allclose(leg.upper, 0.9 * np.pi)  # ${pi*0.9}: xacro's expressions evaluated
    assert np.isclose(leg.fk(np.zeros(6))[2, 3], -0.0285 - 0.11015 - 0.110)


def test_op3_package_uris_resolve_to_the_package_around_the_file():
    description = load_description(OP3_XACRO)
    assert description.resolve("package://op3_description/meshes/body.stl") == OP3 / "meshes" / "body.stl"


def test_xacro_arguments_reach_the_expanded_description():
    short = RobotModel.from_urdf_file(MAKER_BOT_XACRO, {"leg_length": "0.25", "prefix": "a_"})
    assert short.root == "a_pelvis"
    assert np.isclose(short.chain("a_pelvis", "a_l_foot").fk(np.zeros(3))[2, 3], -0.06 - 2 * 0.25)


def test_xacro_arguments_are_read_in_the_xacro_and_the_ros_command_line_forms():
    assert parse_xacro_arguments(["leg_length:=0.25", "prefix:=", "url:=a:=b", "side=l", "eq=a=b"]) == {
        "leg_length": "0.25",
        "prefix": "",
        "url": "a:=b",
        "side": "l",
        "eq": "a=b",
    }
    with pytest.raises(DescriptionError, match="'leg_length' is not of the form name:=value or name=value"):
        parse_xacro_arguments(["leg_length"])


def test_a_xacro_document_given_as_text_is_expanded():
    text = MAKER_BOT_XACRO.read_text()
    description = description_from_string(text, {"leg_length": "0.3"}, [DESCRIPTIONS])
    assert root_link(robot_element(description.xml)) == "pelvis"
    assert "xacro:" not in description.xml


def test_comments_and_single_quotes_do_not_confuse_the_root():
    assert root_link(robot_element(COMMENTED)) == "torso"
    assert RobotModel.from_urdf_string(COMMENTED).root == "torso"


def test_a_description_cut_short_says_so():
    text = MAKER_BOT_XACRO.read_text()
    with pytest.raises(DescriptionError, match="cut short"):
        description_from_string(text[: len(text) // 2])
    with pytest.raises(DescriptionError, match="is empty"):
        description_from_string("")


def test_a_plain_urdf_refuses_xacro_arguments():
    with pytest.raises(DescriptionError, match=r"xacro arguments \['leg'\] given, but .* plain URDF"):
        description_from_string(COMMENTED, {"leg": "1"})


def test_an_unknown_package_is_named_with_the_places_looked_in(tmp_path):
    description = RobotDescription(COMMENTED, tmp_path / "robot.urdf", (tmp_path / "elsewhere",))
    with pytest.raises(DescriptionError) as caught:
        description.resolve("package://nowhere_description/meshes/foot.stl")
    message = str(caught.value)
    assert "package://nowhere_description/meshes/foot.stl" in message
    assert "package 'nowhere_description' not found" in message and str(tmp_path / "elsewhere") in message


def test_an_unknown_package_in_a_xacro_names_it(tmp_path):
    xacro = tmp_path / "robot.urdf.xacro"
    xacro.write_text(
        '<robot xmlns:xacro="http://www.ros.org/wiki/xacro" name="r">'
        '<xacro:include filename="$(find missing_description)/urdf/parts.xacro"/><link name="a"/></robot>'
    )
    with pytest.raises(
        ModelError, match=r"robot.urdf.xacro' does not expand: .*package 'missing_description'"
    ):
        RobotModel.from_urdf_file(xacro)


def test_package_path_finds_packages_anywhere():
    description = RobotDescription(COMMENTED, None, (DESCRIPTIONS,))
    path = description.resolve("package://maker_bot_description/meshes/foot.stl")
    assert path == MAKER_BOT / "meshes" / "foot.stl" and path.is_file()


def test_the_ament_index_finds_an_installed_package(tmp_path, monkeypatch):
    pytest.importorskip("ament_index_python")
    share = tmp_path / "install" / "share"
    (share / "ament_index" / "resource_index" / "packages").mkdir(parents=True)
    (share / "ament_index" / "resource_index" / "packages" / "installed_description").touch()
    (share / "installed_description" / "meshes").mkdir(parents=True)
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(tmp_path / "install"))
    description = RobotDescription(COMMENTED)
    resolved = description.resolve("package://installed_description/meshes/foot.stl")
    assert resolved == share / "installed_description" / "meshes" / "foot.stl"


def test_file_uris_and_relative_paths_resolve_against_the_file(tmp_path):
    description = RobotDescription(COMMENTED, tmp_path / "urdf" / "robot.urdf")
    assert description.resolve("file:///opt/meshes/a.stl").as_posix() == "/opt/meshes/a.stl"
    assert description.resolve("../meshes/a.stl") == tmp_path / "urdf" / ".." / "meshes" / "a.stl"
    assert description.resolve("file://meshes/a.stl") == tmp_path / "urdf" / "meshes" / "a.stl"
    with pytest.raises(DescriptionError, match="'http://example.com/a.stl': unknown scheme"):
        description.resolve("http://example.com/a.stl")
    with pytest.raises(DescriptionError, match="relative path 'meshes/a.stl'.*given as a string"):
        RobotDescription(COMMENTED).resolve("meshes/a.stl")
