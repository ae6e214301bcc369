"""Centre of mass and its floating-base Jacobian, on the packaged humanoid and factory variants."""

from __future__ import annotations

import numpy as np
import pytest
from humanoid_factory import ArmDims, HumanoidSpec, LegDims, humanoid_urdf
from scipy.spatial.transform import Rotation

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.whole_body import CenterOfMass

URDF_PATH = package_share_path("urdf", "humanoid.urdf")
HEAVY_VARIANT = HumanoidSpec(
    leg=LegDims(thigh=0.26, shank=0.24, w=0.03),
    arm=ArmDims(upper_arm=0.2),
    torso_mass=6.5,
    mass_scale=2.3,
)


def _models():
    return {
        "packaged": RobotModel.from_urdf_file(URDF_PATH),
        "heavy variant": RobotModel.from_urdf_string(humanoid_urdf(HEAVY_VARIANT)),
    }


@pytest.fixture(scope="module", params=["packaged", "heavy variant"])
def model(request) -> RobotModel:
    return _models()[request.param]


def _random_pose(rng: np.random.Generator) -> np.ndarray:
    pose = np.eye(4)
    pose[:3, :3] = Rotation.random(random_state=rng).as_matrix()
    pose[:3, 3] = rng.uniform(-1.0, 1.0, 3)
    return pose


def _per_link_sum(model: RobotModel, q: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    """Independent reference: each link's centre through its own chain's FK, mass-weighted."""
    positions = dict(zip(names, q))
    weighted, total = np.zeros(3), 0.0
    for link, inertial in model.inertials.items():
        pose = np.eye(4)
        if link != model.root:
            chain = model.chain(model.root, link)
            pose = chain.fk(np.array([positions[name] for name in chain.joint_names]))
        weighted += inertial.mass * (pose[:3, :3] @ inertial.center + pose[:3, 3])
        total += inertial.mass
    return weighted / total


def test_com_matches_an_independent_per_link_sum(model):
    com = CenterOfMass(model)
    rng = np.random.default_rng(1)
    for _ in range(5):
        q = rng.uniform(-1.5, 1.5, com.n)
        assert np.allclose(com.position(q), _per_link_sum(model, q, com.joint_names), atol=1e-12)


def test_total_mass_counts_every_link_fixed_ones_included(model):
    com = CenterOfMass(model)
    assert com.total_mass == pytest.approx(sum(i.mass for i in model.inertials.values()))
    assert "head" in model.inertials  # attached by a fixed joint


def test_variant_masses_move_the_com():
    packaged, heavy = (CenterOfMass(m) for m in _models().values())
    assert heavy.total_mass == pytest.approx(6.5 + 2.3 * (packaged.total_mass - 2.0))
    assert not np.allclose(heavy.position(np.zeros(heavy.n)), packaged.position(np.zeros(packaged.n)))


def test_jacobian_matches_finite_differences_joints_and_base(model):
    com = CenterOfMass(model)
    rng = np.random.default_rng(2)
    q, base = rng.uniform(-1.0, 1.0, com.n), _random_pose(rng)
    jacobian, eps = com.jacobian(q, base), 1e-6
    numeric = np.empty_like(jacobian)
    for j in range(com.n):
        step = np.zeros(com.n)
        step[j] = eps
        numeric[:, 6 + j] = (com.position(q + step, base) - com.position(q - step, base)) / (2 * eps)
    for k in range(6):
        twist = np.zeros(6)
        twist[k] = eps
        numeric[:, k] = (com.position(q, _moved(base, twist)) - com.position(q, _moved(base, -twist))) / (
            2 * eps
        )
    assert np.allclose(jacobian, numeric, atol=1e-8)


def _moved(base: np.ndarray, twist: np.ndarray) -> np.ndarray:
    """Base moved by a world-frame twist (v, w) applied for unit time about its own origin."""
    moved = base.copy()
    angle = np.linalg.norm(twist[3:])
    if angle > 0:
        moved[:3, :3] = Rotation.from_rotvec(twist[3:]).as_matrix() @ base[:3, :3]
    moved[:3, 3] += twist[:3]
    return moved


def test_batch_equals_single_configurations(model):
    com = CenterOfMass(model)
    rng = np.random.default_rng(3)
    q = rng.uniform(-1.0, 1.0, (7, com.n))
    poses = np.array([_random_pose(rng) for _ in range(7)])
    positions, jacobians = com.position_and_jacobian(q, poses)
    assert positions.shape == (7, 3) and jacobians.shape == (7, 3, 6 + com.n)
    for i in range(7):
        single_position, single_jacobian = com.position_and_jacobian(q[i], poses[i])
        assert np.allclose(positions[i], single_position) and np.allclose(jacobians[i], single_jacobian)


def test_base_pose_moves_the_com_rigidly(model):
    com = CenterOfMass(model)
    rng = np.random.default_rng(4)
    q, base = rng.uniform(-1.0, 1.0, com.n), _random_pose(rng)
    assert np.allclose(com.position(q, base), base[:3, :3] @ com.position(q) + base[:3, 3])


def test_configuration_by_name_and_refusals(model):
    com = CenterOfMass(model)
    q = com.configuration({"l_elbow": -0.5})
    assert q[com.index("l_elbow")] == -0.5 and np.count_nonzero(q) == 1
    with pytest.raises(ValueError, match="unknown joint 'l_elbo'"):
        com.configuration({"l_elbo": 0.1})
    with pytest.raises(ValueError, match="finite"):
        com.configuration({"l_elbow": float("nan")})
    with pytest.raises(ValueError, match=r"expected \(26,\)"):
        com.position(np.zeros(3))


def test_massless_robot_is_refused():
    urdf = '<robot name="ghost"><link name="a"/><link name="b"/><joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>'
    with pytest.raises(ValueError, match="no mass"):
        CenterOfMass(RobotModel.from_urdf_string(urdf))
