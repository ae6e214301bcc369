"""Stance solve: legs exact on their soles, CoM over its target, refusals with the nearest stance."""

from __future__ import annotations

from xml.etree import ElementTree

import numpy as np
import pytest
from humanoid_factory import ArmDims, HumanoidSpec, LegDims, humanoid_urdf

from ik_solvers import RobotModel
from ik_solvers.resources import package_share_path
from ik_solvers.whole_body import StanceSolver, sole_geometry

URDF_PATH = package_share_path("urdf", "humanoid.urdf")
VARIANT = HumanoidSpec(
    leg=LegDims(thigh=0.27, shank=0.25, w=0.03, hip_y=0.075),
    arm=ArmDims(forearm=0.18),
    torso_mass=4.0,
    mass_scale=1.7,
)
COM_TOLERANCE = 1e-4  # [m] the brief's 0.1 mm


def _model(name: str) -> RobotModel:
    if name == "packaged":
        return RobotModel.from_urdf_file(URDF_PATH)
    return RobotModel.from_urdf_string(humanoid_urdf(VARIANT))


@pytest.fixture(scope="module", params=["packaged", "variant"])
def solver(request) -> StanceSolver:
    return StanceSolver(_model(request.param))


def _sole(x: float, y: float, yaw: float = 0.0, z: float = 0.0) -> np.ndarray:
    pose = np.eye(4)
    c, s = np.cos(yaw), np.sin(yaw)
    pose[:3, :3] = [[c, -s, 0], [s, c, 0], [0, 0, 1]]
    pose[:3, 3] = (x, y, z)
    return pose


def _stance_height(solver: StanceSolver) -> float:
    """A torso height with the knees bent: 92 % of the hip-to-sole drop at q = 0."""
    chain = solver.legs.chains[0]
    return -0.92 * chain.fk(np.zeros(chain.n))[2, 3]


def _hip_width(solver: StanceSolver) -> float:
    return float(solver.legs.chains[0].fk(np.zeros(6))[1, 3])


def _assert_exact(solver: StanceSolver, result, left, right) -> None:
    for chain, q, sole in zip(solver.legs.chains, (result.q[:6], result.q[6:]), (left, right)):
        assert np.allclose(result.torso_pose @ chain.fk(q), sole, atol=1e-9)
        assert chain.within_limits(q)
    assert np.all(np.isfinite(result.q))


@pytest.mark.parametrize("support", ["double", "left", "right"])
def test_each_support_puts_the_com_over_its_default_target(solver, support):
    width = _hip_width(solver)
    left, right = _sole(0.03, width), _sole(-0.02, -width, yaw=-0.2)
    result = solver.solve(left, right, _stance_height(solver), support=support)
    assert result.success and result.com_reachable, result.message
    _assert_exact(solver, result, left, right)
    assert result.com_error <= COM_TOLERANCE
    assert np.hypot(*(result.com[:2] - result.com_target)) <= COM_TOLERANCE
    centres = [geometry.center_in_world(pose) for geometry, pose in zip(solver.soles, (left, right))]
    expected = {"left": centres[0], "right": centres[1], "double": 0.5 * (centres[0] + centres[1])}[support]
    assert np.allclose(result.com_target, expected)


def test_arm_masses_count(solver):
    width, height = _hip_width(solver), _stance_height(solver)
    left, right = _sole(0.0, width), _sole(0.0, -width)
    down = solver.solve(left, right, height)
    forward = solver.solve(left, right, height, joints={"l_shoulder_pitch": -1.5, "r_shoulder_pitch": -1.5})
    assert down.success and forward.success
    assert np.allclose(forward.com[:2], down.com[:2], atol=COM_TOLERANCE)
    assert forward.torso_pose[0, 3] < down.torso_pose[0, 3] - 1e-3  # the torso leans back for the arms


def test_offset_and_explicit_target(solver):
    width, height = _hip_width(solver), _stance_height(solver)
    left, right = _sole(0.0, width), _sole(0.0, -width)
    shifted = solver.solve(left, right, height, support="double", com_offset=(0.01, -0.02))
    explicit = solver.solve(left, right, height, com_target=shifted.com_target)
    assert shifted.success and explicit.success
    assert np.allclose(shifted.com_target, solver.com_target(left, right, "double") + (0.01, -0.02))
    assert np.allclose(explicit.torso_pose, shifted.torso_pose, atol=1e-4)


def test_unreachable_com_gives_the_nearest_feasible_stance(solver):
    width, height = _hip_width(solver), _stance_height(solver)
    left, right = _sole(0.0, width), _sole(0.0, -width)
    target = np.array([0.6, 0.1])
    result = solver.solve(left, right, height, com_target=target)
    assert not result.success and not result.com_reachable
    assert "out of reach" in result.message
    _assert_exact(solver, result, left, right)
    assert result.com_error == pytest.approx(np.hypot(*(result.com[:2] - target)))
    assert result.com_error < _grid_best(solver, left, right, height, target) + 5e-3  # grid: 1 cm


def _grid_best(solver, left, right, height, target) -> float:
    """Smallest CoM distance to target over a grid of torso positions where both legs are exact."""
    best = np.inf
    q = solver.com.configuration()
    rotation = np.eye(3)
    for x in np.linspace(-0.3, 0.3, 61):
        for y in np.linspace(-0.2, 0.2, 41):
            pose = np.eye(4)
            pose[:3, 3] = (x, y, height)
            solver.legs.set_soles(left, right)
            ok, _ = solver.legs.solve(pose, q)
            if ok:
                com = rotation @ solver.com.position(q) + pose[:3, 3]
                best = min(best, float(np.hypot(*(com[:2] - target))))
    solver.reset()
    return best


def test_unreachable_height_is_reported_with_finite_in_limit_legs(solver):
    width = _hip_width(solver)
    result = solver.solve(_sole(0.0, width), _sole(0.0, -width), 3.0)
    assert not result.success and "cannot reach" in result.message
    for chain, q in zip(solver.legs.chains, (result.q[:6], result.q[6:])):
        assert np.all(np.isfinite(q)) and chain.within_limits(q)


def test_a_slowly_moving_stance_keeps_its_branch(solver):
    width, height = _hip_width(solver), _stance_height(solver)
    previous = None
    for t in np.linspace(0.0, 1.0, 50):
        left, right = _sole(0.05 * t, width), _sole(-0.05 * t, -width, yaw=0.3 * t)
        result = solver.solve(left, right, height - 0.02 * t, support="double", com_offset=(0.0, 0.02 * t))
        assert result.success, result.message
        if previous is not None:
            assert np.abs(result.q - previous).max() < 0.05
        previous = result.q


def test_bad_input_is_refused(solver):
    left, right = _sole(0.0, 0.08), _sole(0.0, -0.08)
    with pytest.raises(ValueError, match="support 'both'"):
        solver.solve(left, right, 0.4, support="both")
    with pytest.raises(ValueError, match="left_sole"):
        solver.solve(np.full((4, 4), np.nan), right, 0.4)
    with pytest.raises(ValueError, match="rotation"):
        solver.solve(left, right, 0.4, torso_rotation=2 * np.eye(3))
    with pytest.raises(ValueError, match="unknown joint"):
        solver.solve(left, right, 0.4, joints={"nose": 1.0})


def test_sole_footprint_comes_from_the_collision_box():
    geometry = sole_geometry(_model("packaged"), "l_sole")
    assert np.allclose(geometry.center, (0.02, 0.0)) and np.allclose(geometry.size, (0.16, 0.08))
    corners = geometry.corners_in_world(_sole(1.0, 2.0, yaw=np.pi / 2))
    assert np.allclose(corners.mean(axis=0), (1.0, 2.02))


def test_a_leg_without_a_closed_form_is_solved_numerically():
    """Hip roll axis moved 1 cm off the hip yaw axis: no closed form, the numeric solver takes over."""
    robot = ElementTree.fromstring(humanoid_urdf())
    for side in "lr":
        origin = robot.find(f"joint[@name='{side}_leg_root']/origin")
        assert origin.get("xyz") == "0 0 -0.035"
        origin.set("xyz", "0 0.01 -0.035")
    urdf = ElementTree.tostring(robot, encoding="unicode")
    solver = StanceSolver(RobotModel.from_urdf_string(urdf))
    assert type(solver.legs.solvers[0]).__name__ == "JacobianSolver"
    width, height = _hip_width(solver), _stance_height(solver)
    left, right = _sole(0.0, width), _sole(0.02, -width)
    result = solver.solve(left, right, height, support="left")
    assert result.success, result.message
    for chain, q, sole in zip(solver.legs.chains, (result.q[:6], result.q[6:]), (left, right)):
        assert np.allclose(result.torso_pose @ chain.fk(q), sole, atol=1e-5)
        assert chain.within_limits(q)
