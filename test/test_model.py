"""RobotModel and Chain: URDF parsing, chain cutting, FK, Jacobians and their refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from humanoid_factory import HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers import ModelError, RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.spatial import rotation_log

PACKAGED_CHAINS = [
    ("base_link", "l_sole"),
    ("base_link", "r_sole"),
    ("base_link", "l_wrist"),
    ("base_link", "r_wrist"),
    ("base_link", "l_hand"),  # torso to hand: the arm plus a fixed tool offset
    ("l_shoulder_pitch_link", "l_wrist"),  # a chain that starts below the root
]

# A hand-checkable robot: fixed joint with rpy, continuous, prismatic, revolute about a tilted axis.
MIXED_URDF = """<?xml version="1.0"?>
<robot name="mixed">
  <link name="base"/> <link name="a"/> <link name="b"/> <link name="c"/> <link name="d"/> <link name="tip"/>
  <joint name="mount" type="fixed"><parent link="base"/><child link="a"/>
    <origin xyz="0 0 0.5" rpy="0 0 1.5707963267948966"/></joint>
  <joint name="spin" type="continuous"><parent link="a"/><child link="b"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 0 1"/></joint>
  <joint name="slide" type="prismatic"><parent link="b"/><child link="c"/>
    <origin xyz="0.2 0 0"/><axis xyz="1 0 0"/><limit lower="0" upper="0.1" effort="50" velocity="0.2"/></joint>
  <joint name="tilt" type="revolute"><parent link="c"/><child link="d"/>
    <axis xyz="0 1 1"/><limit lower="-1" upper="1" effort="5" velocity="3"/></joint>
  <joint name="tool" type="fixed"><parent link="d"/><child link="tip"/><origin xyz="0 0 0.1"/></joint>
</robot>
"""


@pytest.fixture(scope="module")
def humanoid() -> RobotModel:
    return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))


@pytest.fixture(scope="module")
def mixed() -> RobotModel:
    return RobotModel.from_urdf_string(MIXED_URDF)


def numeric_jacobian(chain, q: np.ndarray, step: float = 1e-6) -> np.ndarray:
    """Central finite differences of FK: (6, n), linear rows then angular (rotation vector)."""
    columns = []
    for i in range(chain.n):
        dq = np.zeros(chain.n)
        dq[i] = step
        plus, minus = chain.fk(q + dq), chain.fk(q - dq)
        linear = (plus[:3, 3] - minus[:3, 3]) / (2 * step)
        angular = rotation_log(plus[:3, :3] @ minus[:3, :3].T) / (2 * step)
        columns.append(np.concatenate([linear, angular]))
    return np.array(columns).T


def test_mixed_chain_skips_fixed_joints_and_keeps_urdf_order(mixed):
    chain = mixed.chain("base", "tip")
    assert chain.joint_names == ("spin", "slide", "tilt")
    assert chain.continuous.tolist() == [True, False, False]
    assert chain.prismatic.tolist() == [False, True, False]
    np.testing.assert_allclose(chain.lower, [-math.pi, 0.0, -1.0])
    np.testing.assert_allclose(chain.upper, [math.pi, 0.1, 1.0])
    np.testing.assert_allclose(chain.velocity_limits, [math.inf, 0.2, 3.0])


def test_mixed_chain_fk_matches_hand_derivation(mixed):
    # The mount turns x onto y and lifts by 0.5; spin by 90° turns the next x onto -x (in base);
    # the 0.2 m link and a 0.05 m slide then run along base -x; tilt 0 leaves the 0.1 m tool on z.
    pose = mixed.chain("base", "tip").fk([math.pi / 2, 0.05, 0.0])
    np.testing.assert_allclose(pose[:3, 3], [-0.25, 0.3, 0.6], atol=1e-12)
    np.testing.assert_allclose(pose[:3, :3], np.diag([-1.0, -1.0, 1.0]), atol=1e-12)


def test_revolute_about_tilted_axis_rotates_tool_about_that_axis(mixed):
    pose = mixed.chain("c", "tip").fk([math.pi])
    # A half turn about (0, 1, 1)/√2 maps z onto y.
    np.testing.assert_allclose(pose[:3, 3], [0.0, 0.1, 0.0], atol=1e-12)


def test_factory_leg_fk_at_zero_and_with_knee_bent_matches_its_dimensions():
    dims = LegDims(w=0.03, thigh=0.22, shank=0.18, foot_z=-0.02)
    chain = RobotModel.from_urdf_string(humanoid_urdf(HumanoidSpec(leg=dims))).chain("base_link", "l_sole")
    drop = dims.hip_z + dims.root_z + dims.upper_z
    y = dims.hip_y + dims.w
    straight = chain.fk(np.zeros(6))
    np.testing.assert_allclose(
        straight[:3, 3], [0, y, drop - dims.thigh - dims.shank + dims.foot_z + dims.sole_z]
    )
    # Knee +90° about y swings the shank from -z to -x (backwards); the sole turns with it.
    bent = chain.fk([0, 0, 0, math.pi / 2, 0, 0])
    below = dims.shank - dims.foot_z - dims.sole_z
    np.testing.assert_allclose(bent[:3, 3], [-below, y, drop - dims.thigh], atol=1e-12)


@pytest.mark.parametrize("base,tip", PACKAGED_CHAINS)
def test_jacobian_matches_finite_differences_of_fk(humanoid, base, tip):
    chain = humanoid.chain(base, tip)
    rng = np.random.default_rng(7)
    for q in chain.random_configurations(20, rng):
        np.testing.assert_allclose(chain.jacobian(q), numeric_jacobian(chain, q), atol=1e-8)


def test_jacobian_of_continuous_and_prismatic_joints_matches_finite_differences(mixed):
    chain = mixed.chain("base", "tip")
    for q in chain.random_configurations(20, np.random.default_rng(3)):
        np.testing.assert_allclose(chain.jacobian(q), numeric_jacobian(chain, q), atol=1e-8)


@pytest.mark.parametrize("base,tip", PACKAGED_CHAINS)
def test_batched_fk_and_jacobian_equal_single_calls(humanoid, base, tip):
    chain = humanoid.chain(base, tip)
    configurations = chain.random_configurations(3000, np.random.default_rng(11))  # spans two blocks
    poses, jacobians = chain.fk_and_jacobian(configurations)
    np.testing.assert_allclose(chain.fk(configurations), poses, atol=1e-15)
    for index in (0, 1, 2047, 2048, 2999):
        pose, jacobian = chain.fk_and_jacobian(configurations[index])
        np.testing.assert_allclose(poses[index], pose, atol=1e-14)
        np.testing.assert_allclose(jacobians[index], jacobian, atol=1e-14)


def test_batched_fk_with_prismatic_joint_equals_single(mixed):
    chain = mixed.chain("base", "tip")
    configurations = chain.random_configurations(10, np.random.default_rng(5))
    expected = np.array([chain.fk(q) for q in configurations])
    np.testing.assert_allclose(chain.fk(configurations), expected, atol=1e-15)


def test_unknown_link_names_the_close_matches(humanoid):
    with pytest.raises(ModelError, match=r"unknown link 'l_sol'.*did you mean 'l_sole'"):
        humanoid.chain("base_link", "l_sol")


def test_links_on_different_branches_are_refused(humanoid):
    with pytest.raises(ModelError, match="different branches"):
        humanoid.chain("l_sole", "r_wrist")


def test_tip_above_base_suggests_swapping(humanoid):
    with pytest.raises(ModelError, match=r"swap them: chain\('base_link', 'l_sole'\)"):
        humanoid.chain("l_sole", "base_link")


def test_malformed_xml_reports_the_parsers_reason():
    with pytest.raises(ModelError, match="URDF does not parse: no element found: line 1"):
        RobotModel.from_urdf_string("<robot name='x'><link name='a'>")


def test_joint_naming_an_undefined_link_is_refused():
    xml = "<robot name='x'><link name='a'/><joint name='j' type='fixed'><parent link='a'/><child link='ghost'/></joint></robot>"
    with pytest.raises(ModelError, match="joint 'j' names link 'ghost'"):
        RobotModel.from_urdf_string(xml)


def test_revolute_joint_without_limits_is_refused():
    xml = (
        "<robot name='x'><link name='a'/><link name='b'/><joint name='j' type='revolute'>"
        "<parent link='a'/><child link='b'/><axis xyz='0 0 1'/></joint></robot>"
    )
    with pytest.raises(ModelError, match="revolute joint 'j' needs <limit"):
        RobotModel.from_urdf_string(xml)


def test_floating_joint_is_refused_with_the_supported_types():
    xml = (
        "<robot name='x'><link name='a'/><link name='b'/><joint name='j' type='floating'>"
        "<parent link='a'/><child link='b'/></joint></robot>"
    )
    with pytest.raises(
        ModelError, match="type 'floating'; supported types: revolute, continuous, prismatic, fixed"
    ):
        RobotModel.from_urdf_string(xml)


def test_missing_file_is_reported_with_its_path(tmp_path):
    with pytest.raises(ModelError, match="cannot read URDF file '.*nowhere.urdf'"):
        RobotModel.from_urdf_file(tmp_path / "nowhere.urdf")


def test_wrong_configuration_shape_names_the_expected_joints(humanoid):
    chain = humanoid.chain("base_link", "l_sole")
    with pytest.raises(ValueError, match=r"expected \(6,\) or \(N, 6\) for the joints \['l_hip_joint'"):
        chain.fk(np.zeros(5))


@pytest.mark.parametrize("count", [2, 12])
def test_small_batches_of_fk_and_jacobian_equal_single_calls(mixed, count):
    chain = mixed.chain("base", "tip")
    configurations = chain.random_configurations(count, np.random.default_rng(6))
    poses, jacobians = chain.fk_and_jacobian(configurations)
    for q, pose, jacobian in zip(configurations, poses, jacobians):
        expected_pose, expected_jacobian = chain.fk_and_jacobian(q)
        np.testing.assert_allclose(pose, expected_pose, atol=1e-15)
        np.testing.assert_allclose(jacobian, expected_jacobian, atol=1e-15)


def packaged_urdf() -> str:
    return package_share_path("urdf", "humanoid.urdf").read_text()


def with_joint(xml: str, joint: str) -> str:
    """The URDF ``xml`` with the ``<joint>`` element ``joint`` added before ``</robot>``."""
    return xml.replace("</robot>", joint + "\n</robot>")


def test_link_with_two_parents_is_refused_naming_the_link_and_both_parents():
    extra = "<joint name='head_to_hand' type='fixed'><parent link='head'/><child link='l_hand'/></joint>"
    with pytest.raises(ModelError, match=r"link 'l_hand' has two parents: 'l_wrist' .* and 'head'"):
        RobotModel.from_urdf_string(with_joint(packaged_urdf(), extra))


def test_joints_forming_a_loop_are_refused_naming_the_loop():
    xml = (
        "<robot name='x'><link name='a'/><link name='b'/><link name='c'/>"
        "<joint name='ab' type='fixed'><parent link='a'/><child link='b'/></joint>"
        "<joint name='bc' type='fixed'><parent link='b'/><child link='c'/></joint>"
        "<joint name='cb' type='fixed'><parent link='c'/><child link='b'/></joint></robot>"
    )
    with pytest.raises(ModelError, match="link 'b' has two parents"):
        RobotModel.from_urdf_string(xml)
    cycle = (
        "<robot name='x'><link name='a'/><link name='b'/><link name='c'/>"
        "<joint name='bc' type='fixed'><parent link='b'/><child link='c'/></joint>"
        "<joint name='cb' type='fixed'><parent link='c'/><child link='b'/></joint></robot>"
    )
    with pytest.raises(ModelError, match=r"joints form a loop: (b → c → b|c → b → c)"):
        RobotModel.from_urdf_string(cycle)


def test_duplicate_joint_names_are_refused():
    extra = (
        "<joint name='head_fixed' type='fixed'><parent link='l_hand'/><child link='spare'/></joint>"
        "<link name='spare'/>"
    )
    with pytest.raises(ModelError, match="joint name 'head_fixed' is used twice"):
        RobotModel.from_urdf_string(with_joint(packaged_urdf(), extra))


def one_joint_urdf(limit: str, kind: str = "revolute") -> str:
    return (
        f"<robot name='x'><link name='a'/><link name='b'/><joint name='j' type='{kind}'>"
        f"<parent link='a'/><child link='b'/><axis xyz='0 0 1'/>{limit}</joint></robot>"
    )


@pytest.mark.parametrize("velocity", ["0", "nan", "-1"])
def test_velocity_limit_that_is_not_positive_is_refused_naming_the_joint(velocity):
    xml = one_joint_urdf(f"<limit lower='-1' upper='1' effort='1' velocity='{velocity}'/>")
    with pytest.raises(ModelError, match=rf"joint 'j' has velocity limit {velocity}.*positive"):
        RobotModel.from_urdf_string(xml)


@pytest.mark.parametrize("kind", ["revolute", "prismatic"])
@pytest.mark.parametrize("lower,upper", [("-inf", "inf"), ("-1.0", "inf"), ("-inf", "1.0")])
def test_infinite_position_limits_are_refused_clearly(kind, lower, upper):
    xml = one_joint_urdf(f"<limit lower='{lower}' upper='{upper}' effort='1' velocity='1'/>", kind)
    with pytest.raises(ModelError, match=rf"{kind} joint 'j' has limits \[{lower}, {upper}\].*finite"):
        RobotModel.from_urdf_string(xml)
