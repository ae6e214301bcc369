"""walk_node's stabiliser inputs sampled at one instant by their stamps (no node: real messages,
the packaged robot's CoM model), and the loop stabiliser's refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("rclpy")

from builtin_interfaces.msg import Time
from sensor_msgs.msg import Imu, JointState

from ik_solvers import RobotModel
from ik_solvers.demo.servo_bus import BUS_SAMPLE_AGE
from ik_solvers.resources import package_share_path
from ik_solvers.walk.balance_inputs import BalanceInputs
from ik_solvers.whole_body import CenterOfMass, StanceSolver, WalkConfig, WalkingPatternGenerator
from ik_solvers.whole_body.stabiliser_loop import LoopStabiliser


@pytest.fixture(scope="module")
def model():
    return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf"))


def _stamp(seconds: float) -> Time:
    return Time(sec=int(seconds), nanosec=round((seconds % 1.0) * 1e9))


def _joints(seconds: float, knee: float) -> JointState:
    message = JointState(name=["l_knee"], position=[knee])
    message.header.stamp = _stamp(seconds)
    return message


def _imu(seconds: float, pitch: float, rate: float) -> Imu:
    message = Imu()
    message.header.stamp = _stamp(seconds)
    message.orientation.w, message.orientation.y = math.cos(pitch / 2), math.sin(pitch / 2)
    message.angular_velocity.y = rate
    return message


def test_inputs_are_those_of_one_instant_whatever_arrived_last(model):
    inputs = BalanceInputs(CenterOfMass(model), timeout=0.1, sample_age=0.01)
    knee = inputs.com.index("l_knee")
    for t, value in ((1.00, 0.0), (1.01, 0.1), (1.02, 0.2)):
        inputs.on_joint_state(_joints(t, value), now=1.02)
    inputs.on_imu(_imu(1.002, 0.0, 1.0), now=1.02)  # the IMU lags: its newest sample is 8 ms older
    quaternion, gyro, q = inputs.latest(now=1.015)  # halfway between two joint states
    assert q[knee] == pytest.approx(0.05)
    assert inputs.age(1.015) == pytest.approx(0.01)
    # turned on by its gyro (1 rad/s about y) from 1.002 s to 1.005 s
    assert 2.0 * math.asin(quaternion[2]) == pytest.approx(0.003, abs=1e-9)
    assert gyro[1] == 1.0


def test_a_late_message_among_many_is_kept_in_order(model):
    inputs = BalanceInputs(CenterOfMass(model), timeout=0.1, sample_age=0.01)
    knee = inputs.com.index("l_knee")
    for i in range(25):  # more than are kept, one of them late (it raised IndexError once full)
        t = 1.0 + 0.01 * (i if i != 20 else 21)
        inputs.on_joint_state(_joints(t, t), now=t)
        if i == 21:
            inputs.on_joint_state(_joints(1.2, 1.2), now=t)
    inputs.on_imu(_imu(1.24, 0.0, 0.0), now=1.24)
    _, _, q = inputs.latest(now=1.215)
    assert q[knee] == pytest.approx(1.205)


def test_an_imu_without_orientation_is_refused_saying_why(model):
    inputs = BalanceInputs(CenterOfMass(model), timeout=0.1)
    message = _imu(1.0, 0.0, 0.0)
    message.orientation_covariance[0] = -1.0
    inputs.on_imu(message, now=1.0)
    inputs.on_joint_state(_joints(1.0, 0.0), now=1.0)
    assert inputs.latest(now=1.0) is None and "AHRS" in inputs.problem


def test_loop_stabiliser_parameters_are_checked(model):
    stance = StanceSolver(model)
    generator = WalkingPatternGenerator(stance.model, WalkConfig(stabilise=True), stance=stance)
    with pytest.raises(ValueError, match="stance_tolerance > 0"):
        LoopStabiliser(generator, stance, stance_tolerance=0.0)
    with pytest.raises(ValueError, match="actuation_delay >= 0"):
        LoopStabiliser(generator, stance, actuation_delay=-0.01)


def test_the_feedback_waits_for_the_stance_then_ramps_in(model):
    stance = StanceSolver(model)
    generator = WalkingPatternGenerator(stance.model, WalkConfig(stabilise=True), stance=stance)
    stabiliser = LoopStabiliser(generator, stance, ramp_time=0.5)
    tick = generator.step()
    planned = stance.solve(tick.left_sole, tick.right_sole, tick.torso_height, com_target=tick.com)
    level = np.array([1.0, 0.0, 0.0, 0.0])
    straight = np.zeros(stance.com.n)
    for _ in range(20):  # straight legs: far from the plan's stance
        stabiliser.update(generator.step(), level, np.zeros(3), straight)
    assert stabiliser.ready_at is None and stabiliser.ramp == 0.0
    q = stance.com.configuration(planned.positions)
    shares = [
        stabiliser.update(generator.step(), level, np.zeros(3), q) and stabiliser.ramp for _ in range(60)
    ]
    assert stabiliser.ready_at is not None
    assert shares[0] < 0.05 and 0.4 < shares[25] < 0.6 and shares[-1] == 1.0


def _ages_behind_the_bus(model, sample_age: float) -> set[float]:
    """[ms] the inputs' ages at 200 ticks of 10 ms when, as through the servo bus of
    ``ik_demo --servo-bus``, the joints of period T reach walk_node after its tick at T + 10 ms in
    one tick of seven (measured: 6-13 % of the ticks), and the IMU (from the simulator) in time."""
    inputs = BalanceInputs(CenterOfMass(model), timeout=0.1, sample_age=sample_age)
    late = None  # the joint state of the period before, delivered after this tick
    ages = set()
    for k in range(1, 201):
        now = k * 0.01
        inputs.on_imu(_imu(now, 0.0, 0.0), now)
        if late is not None:
            inputs.on_joint_state(_joints(late, 0.0), now)
            late = None
        if k % 7 == 0:
            late = now - 0.01
        else:
            inputs.on_joint_state(_joints(now - 0.01, 0.0), now)
        if k > 3 and inputs.latest(now) is not None:
            ages.add(round(1000 * inputs.age(now)))
    return ages


def test_through_the_bus_the_inputs_are_sampled_at_a_steady_age(model):
    assert _ages_behind_the_bus(model, BUS_SAMPLE_AGE) == {20}
    # walk_node's default, right behind the simulator alone, lets the age jump from tick to tick
    assert _ages_behind_the_bus(model, 0.01) == {10, 20}
