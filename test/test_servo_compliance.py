"""Servo compliance compensation (:mod:`ik_solvers.whole_body.servo_compliance`): the load model
against what MuJoCo's servos hold, the cart-table ZMP, the refusals, and the walk on the packaged
robot's real servos (MX-106 legs with their gear play and 6 ms of bus latency), which falls without
the compensation and walks with it (real MuJoCo, the offline loop, no ROS)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from ik_solvers.resources import package_share_path
from ik_solvers.sim.mujoco_robot import ServoConfig
from ik_solvers.walk.config import load_walk_config
from ik_solvers.walk.offline import OfflineWalker
from ik_solvers.walk.walk_metrics import sole_slip, tilt_degrees
from ik_solvers.whole_body.servo_compliance import CartTableZmp, ComplianceCompensation, Support

URDF = package_share_path("urdf", "humanoid.urdf").read_text()
SERVOS = str(package_share_path("config", "servos", "humanoid_servo_models.yaml"))
WALK_SECONDS = 8.0  # [s] forward: uncompensated, the real servos fall at 6.8 s (bench/servo_model_walk.py)


def _standing_walker(**servo) -> OfflineWalker:
    walker = OfflineWalker(URDF, load_walk_config(), ServoConfig(**servo))
    walker.settle(1.0)
    return walker


def _first_stance(walker: OfflineWalker) -> tuple[np.ndarray, np.ndarray, Support]:
    """The robot's first planned stance: q (the model's configuration), torso pose (4, 4) and the
    double support under it."""
    tick = walker.generator.step()
    result = walker.stance.solve(tick.left_sole, tick.right_sole, tick.torso_height, com_target=tick.com)
    q = walker.stance.com.configuration(result.positions)
    return q, result.torso_pose, Support(tick.left_sole, tick.right_sole, "double", tick.com)


def _stance_load(walker: OfflineWalker) -> tuple[np.ndarray, np.ndarray]:
    """(predicted, held) leg torques [N m] of the robot standing in its first stance."""
    q, torso_pose, ground = _first_stance(walker)
    predicted = ComplianceCompensation(walker.stance, {}).torques(q, torso_pose, ground)
    dofs = [walker.robot.model.joint(name).dofadr[0] for name in walker.stance.joint_names]
    return predicted, walker.robot.data.qfrc_actuator[dofs]


def test_the_knees_and_ankles_load_is_what_the_simulated_servos_hold_standing():
    walker = _standing_walker()
    predicted, held = _stance_load(walker)
    names = walker.stance.joint_names
    for joint in ("l_knee", "r_knee", "l_ankle", "r_ankle"):
        i = names.index(joint)
        assert predicted[i] == pytest.approx(held[i], rel=0.25, abs=0.05), joint
    assert abs(predicted[names.index("l_knee")]) > 1.0  # [N m]: a real load, not zero against zero


def test_ideal_servos_get_no_offsets_and_soft_ones_bend_the_other_way_of_the_load():
    walker = _standing_walker()
    q, torso_pose, ground = _first_stance(walker)
    assert np.all(ComplianceCompensation(walker.stance, {}).offsets(q, torso_pose, ground) == 0.0)
    stiffness = dict.fromkeys(walker.stance.joint_names, 50.0)
    soft = ComplianceCompensation(walker.stance, stiffness)
    torques = soft.torques(q, torso_pose, ground)
    assert soft.offsets(q, torso_pose, ground) == pytest.approx(torques / 50.0)


def test_an_unloaded_joints_play_is_taken_up_the_way_the_plan_moves_it():
    walker = _standing_walker()
    q, torso_pose, ground = _first_stance(walker)
    names = walker.stance.joint_names
    play = dict.fromkeys(names, 0.01)  # [rad]
    compensation = ComplianceCompensation(walker.stance, dict.fromkeys(names, 50.0), play)
    loads = np.abs(compensation.torques(q, torso_pose, ground))
    yaw = names.index("l_hip_joint")
    column = walker.stance.legs.columns[yaw]
    assert loads[yaw] < 0.01  # [N m]: standing, a hip yaw holds no load
    still = compensation.offsets(q, torso_pose, ground)[yaw]
    turned = q.copy()
    turned[column] += 0.01  # the plan turns the hip yaw
    assert compensation.offsets(turned, torso_pose, ground)[yaw] == pytest.approx(still + 0.005, abs=5e-4)
    assert compensation.offsets(turned, torso_pose, ground)[yaw] == pytest.approx(still + 0.005, abs=5e-4)
    assert compensation.offsets(q, torso_pose, ground)[yaw] == pytest.approx(still - 0.005, abs=5e-4)


def test_the_cart_table_zmp_leads_an_accelerating_com_backwards():
    zmp = CartTableZmp()
    acceleration, height = np.array([0.5, -0.2]), 0.4
    for k in range(4):
        t = 0.01 * k
        point = zmp.update(t, 0.5 * acceleration * t * t, height)
    assert point == pytest.approx(0.5 * acceleration * t * t - height / 9.81 * acceleration)
    assert zmp.update(1.0, np.zeros(2), height) == pytest.approx(np.zeros(2))  # after a gap: the CoM


@pytest.mark.parametrize(
    ("stiffness", "backlash", "message"),
    [
        ({"l_elbow": 10.0}, {}, "not leg joints"),
        ({"l_knee": 0.0}, {}, "positive number"),
        ({"l_knee": 10.0}, {"l_knee": -0.1}, "finite number >= 0"),
    ],
)
def test_a_bad_servo_description_is_refused_saying_what_is_accepted(stiffness, backlash, message):
    walker = _standing_walker()
    with pytest.raises(ValueError, match=message):
        ComplianceCompensation(walker.stance, stiffness, backlash)


def _walk(compensate: bool) -> dict[str, np.ndarray]:
    walker = OfflineWalker(
        URDF,
        load_walk_config(),
        ServoConfig(servo_model=SERVOS, command_latency=0.006),
        compensate=compensate,
    )
    walker.settle(0.5)
    walker.run([(WALK_SECONDS, (0.9 * walker.generator.max_command[0], 0.0, 0.0))])
    return walker.log.measured()


def test_real_servos_walk_with_the_compensation_and_fall_without_it():
    plain, compensated = _walk(False), _walk(True)
    assert tilt_degrees(plain["base"]).max() > 30.0  # fell
    assert tilt_degrees(compensated["base"]).max() < 5.0
    slip = sole_slip(compensated["times"], compensated["soles"], compensated["support"])
    assert slip <= 0.005
    assert compensated["base"][-1, 0] - compensated["base"][0, 0] > 0.2  # [m] walked forward
