"""The packaged humanoid URDF, checked from the file itself: structure, axes, W, limits, inertials."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from urdf_parser_py import urdf as urdf_parser

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path

URDF_PATH = package_share_path("urdf", "humanoid.urdf")
LEG_WORDS = ("hip_joint", "leg_root", "upper_leg", "knee", "ankle", "foot")
LEG_AXES = ("z", "x", "y", "y", "y", "x")  # yaw, roll, 3 pitches, roll (docs/algorithms.md)
UNIT = {"x": np.array([1.0, 0, 0]), "y": np.array([0, 1.0, 0]), "z": np.array([0, 0, 1.0])}


@pytest.fixture(scope="module")
def model() -> RobotModel:
    return RobotModel.from_urdf_file(URDF_PATH)


@pytest.fixture(scope="module")
def parsed():
    return urdf_parser.URDF.from_xml_string(URDF_PATH.read_text())


def axis_lines(chain) -> tuple[np.ndarray, np.ndarray]:
    """Joint axis directions (n, 3) and points on them (n, 3), base frame, at q = 0."""
    frames = chain.joint_frames(np.zeros(chain.n))
    return np.einsum("nij,nj->ni", frames[:, :3, :3], chain.axes), frames[:, :3, 3]


def line_distance(d1, p1, d2, p2) -> float:
    normal = np.cross(d1, d2)
    if np.linalg.norm(normal) < 1e-12:
        return float(np.linalg.norm(np.cross(p2 - p1, d1)))
    return float(abs((p2 - p1) @ normal) / np.linalg.norm(normal))


def test_base_link_is_the_root_and_rep120_frames_exist(model):
    assert model.root == "base_link"
    for frame in ("l_sole", "r_sole", "l_wrist", "r_wrist"):
        assert frame in model.links


@pytest.mark.parametrize("side", ["l", "r"])
def test_leg_has_the_seed_001_joint_structure(model, side):
    chain = model.chain("base_link", f"{side}_sole")
    assert chain.joint_names == tuple(f"{side}_{word}" for word in LEG_WORDS)
    directions, _ = axis_lines(chain)
    for direction, expected in zip(directions, LEG_AXES):
        assert abs(abs(direction @ UNIT[expected]) - 1.0) < 1e-12


@pytest.mark.parametrize("side", ["l", "r"])
def test_leg_has_a_lateral_offset_w_between_leg_root_and_the_pitch_line(model, side):
    _, points = axis_lines(model.chain("base_link", f"{side}_sole"))
    leg_root, upper_leg, knee, ankle, foot = points[1:]
    w = abs(upper_leg[1] - leg_root[1])
    assert w > 0.005
    for point in (knee, ankle, foot):  # the pitch joints and the foot roll lie on one sagittal line
        assert point[1] == pytest.approx(upper_leg[1], abs=1e-12)
        assert point[0] == pytest.approx(leg_root[0], abs=1e-12)


@pytest.mark.parametrize("side", ["l", "r"])
def test_arm_shoulder_and_wrist_axes_intersect_with_orthogonal_neighbours(model, side):
    chain = model.chain("base_link", f"{side}_wrist")
    assert chain.n == 7
    directions, points = axis_lines(chain)
    for group in ((0, 1, 2), (4, 5, 6)):
        for i, j in itertools.combinations(group, 2):
            assert line_distance(directions[i], points[i], directions[j], points[j]) < 1e-12
        for i, j in itertools.pairwise(group):
            assert abs(directions[i] @ directions[j]) < 1e-12
    upper_arm, forearm = points[3] - points[0], points[4] - points[3]
    assert abs(directions[3] @ upper_arm) < 1e-12 and abs(directions[3] @ forearm) < 1e-12
    assert np.linalg.norm(upper_arm) > 0.05 and np.linalg.norm(forearm) > 0.05


def test_robot_is_as_tall_as_a_small_humanoid(model, parsed):
    heights = []
    for link in parsed.links:
        for visual in link.visuals:
            chain = model.chain("base_link", link.name)
            pose = chain.fk(np.zeros(chain.n))
            centre = pose[:3, :3] @ np.array(visual.origin.xyz) + pose[:3, 3]
            half = np.abs(pose[:3, :3]) @ (np.array(visual.geometry.size) / 2)
            heights += [centre[2] - half[2], centre[2] + half[2]]
    assert 0.5 <= max(heights) - min(heights) <= 1.2


def test_every_movable_joint_has_real_servo_limits(parsed):
    movable = [j for j in parsed.joints if j.type in ("revolute", "prismatic", "continuous")]
    assert len(movable) == 26
    for joint in movable:
        limit = joint.limit
        assert limit.lower < limit.upper, joint.name
        assert limit.upper - limit.lower <= 2 * np.pi, joint.name
        assert 0.5 <= limit.velocity <= 10.0, joint.name  # rad/s of hobby and research servos
        assert 0.5 <= limit.effort <= 50.0, joint.name  # N m


def test_every_link_with_mass_has_a_physical_inertia_and_geometry(parsed):
    massive = [link for link in parsed.links if link.inertial is not None]
    assert len(massive) >= 27
    for link in massive:
        inertia = link.inertial.inertia
        tensor = np.array(
            [
                [inertia.ixx, inertia.ixy, inertia.ixz],
                [inertia.ixy, inertia.iyy, inertia.iyz],
                [inertia.ixz, inertia.iyz, inertia.izz],
            ]
        )
        principal = np.linalg.eigvalsh(tensor)
        assert link.inertial.mass > 0, link.name
        assert principal.min() > 0, link.name
        for i in range(3):  # triangle inequality of the principal moments
            assert principal[i] <= principal[(i + 1) % 3] + principal[(i + 2) % 3] + 1e-15, link.name
        assert link.visuals and link.collisions, link.name


def test_total_mass_is_that_of_a_small_humanoid(parsed):
    total = sum(link.inertial.mass for link in parsed.links if link.inertial is not None)
    assert 2.0 <= total <= 15.0
