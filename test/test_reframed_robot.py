"""The packaged humanoid written the way CAD exporters write URDFs: every link frame turned by a
random rotation (rpy on every joint origin, tilted axis vectors). Kinematically it is the same
robot, so both solver kinds must find it, and solve it, from its geometry alone."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation
from urdf_parser_py import urdf as urdf_parser

from ik_solvers import RobotModel, make_solver
from ik_solvers.resources import package_share_path

TIPS = ("l_sole", "r_sole", "l_wrist", "r_hand")


def homogeneous(rotation: np.ndarray, translation=(0.0, 0.0, 0.0)) -> np.ndarray:
    transform = np.eye(4)
    transform[:3, :3], transform[:3, 3] = rotation, translation
    return transform


def reframed_urdf(xml: str, rng: np.random.Generator) -> str:
    """``xml`` with each link frame but base_link's turned by a random rotation, joints compensated."""
    robot = urdf_parser.URDF.from_xml_string(xml)
    turn = {link.name: Rotation.random(random_state=rng).as_matrix() for link in robot.links}
    turn["base_link"] = np.eye(3)
    for joint in robot.joints:
        origin = homogeneous(Rotation.from_euler("xyz", joint.origin.rpy).as_matrix(), joint.origin.xyz)
        moved = np.linalg.inv(homogeneous(turn[joint.parent])) @ origin @ homogeneous(turn[joint.child])
        joint.origin.xyz = moved[:3, 3].tolist()
        joint.origin.rpy = Rotation.from_matrix(moved[:3, :3]).as_euler("xyz").tolist()
        if joint.axis is not None:
            joint.axis = (turn[joint.child].T @ np.array(joint.axis)).tolist()
    return robot.to_xml_string()


@pytest.fixture(scope="module")
def models() -> tuple[RobotModel, RobotModel]:
    xml = package_share_path("urdf", "humanoid.urdf").read_text()
    return RobotModel.from_urdf_string(xml), RobotModel.from_urdf_string(
        reframed_urdf(xml, np.random.default_rng(5))
    )


@pytest.mark.parametrize("tip", TIPS)
def test_reframed_robot_has_the_same_tip_positions(models, tip):
    original, reframed = (model.chain("base_link", tip) for model in models)
    configurations = original.random_configurations(200, np.random.default_rng(1))
    np.testing.assert_allclose(
        reframed.fk(configurations)[:, :3, 3], original.fk(configurations)[:, :3, 3], atol=1e-12
    )


@pytest.mark.parametrize("kind,count", [("geometric", 2000), ("jacobian", 100)])
@pytest.mark.parametrize("tip", TIPS)
def test_both_solver_kinds_solve_the_reframed_robot(models, tip, kind, count):
    chain = models[1].chain("base_link", tip)
    targets = chain.fk(chain.random_configurations(count, np.random.default_rng(2)))
    result = make_solver(kind, chain).solve_batch(targets)
    assert result.success.all()
    assert chain.within_limits(result.q).all()
    np.testing.assert_allclose(chain.fk(result.q), targets, atol=1e-5)
