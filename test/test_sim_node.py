"""sim_node over real DDS: joint states at its rate, holding commands, refusing unknown joints without dying."""

from __future__ import annotations

import numpy as np
import pytest
from ros_helpers import spin_until, wait_for_matching

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from sensor_msgs.msg import JointState
from std_msgs.msg import Float64

POSTURE = {"l_knee": 0.8, "l_upper_leg": -0.4, "l_ankle": -0.4, "r_elbow": -1.2, "l_shoulder_roll": 0.5}
HOLD_TOLERANCE = 0.01  # [rad] what the fixed-base servos hold under gravity
JOINT_COUNT = 26


@pytest.fixture
def sim(processes, make_node, executor):
    """A running sim_node (fixed base, RTF reported every 0.5 s) and a test node talking to it."""
    process = processes.start_console_script("sim_node", "--ros-args", "-p", "report_period:=0.5")
    node = make_node("sim_node_test")
    states: list[JointState] = []
    node.create_subscription(JointState, "/joint_states", states.append, 50)
    publisher = node.create_publisher(JointState, "joint_commands", 10)
    started = wait_for_matching(executor, publisher) and spin_until(executor, lambda: bool(states))
    assert started, f"sim_node did not come up:\n{processes.output(process)}"
    return process, node, states, publisher


def _command(names: list[str], positions: list[float]) -> JointState:
    message = JointState()
    message.name, message.position = names, positions
    return message


def _positions(state: JointState) -> dict[str, float]:
    return dict(zip(state.name, state.position))


def test_joint_states_carry_position_velocity_and_effort_of_every_joint(sim, executor):
    _, _, states, _ = sim
    spin_until(executor, lambda: len(states) >= 5)
    state = states[-1]
    assert len(state.name) == len(state.position) == len(state.velocity) == len(state.effort) == JOINT_COUNT
    assert np.isfinite(state.position).all() and np.isfinite(state.effort).all()


def test_commanded_posture_is_reached_and_held(sim, executor):
    _, _, states, publisher = sim
    publisher.publish(_command(list(POSTURE), list(POSTURE.values())))

    def held() -> bool:
        positions = _positions(states[-1])
        return all(abs(positions[name] - value) < HOLD_TOLERANCE for name, value in POSTURE.items())

    assert spin_until(executor, held, timeout=30.0), _positions(states[-1])


def test_unknown_joint_is_refused_with_a_warning_and_the_node_keeps_running(sim, executor, processes):
    process, _, states, publisher = sim
    publisher.publish(_command(["no_such_joint", "l_elbow"], [1.0, -0.7]))
    publisher.publish(_command(["l_elbow"], []))  # lengths differ: refused as a whole
    assert spin_until(executor, lambda: abs(_positions(states[-1])["l_elbow"] + 0.7) < HOLD_TOLERANCE)
    count = len(states)
    assert spin_until(executor, lambda: len(states) > count + 10), "joint states stopped"
    assert process.poll() is None
    output = processes.output(process)
    assert "no_such_joint" in output and "refused" in output


def test_real_time_factor_is_reported(sim, make_node, executor):
    node = make_node("rtf_listener")
    factors: list[Float64] = []
    node.create_subscription(Float64, "/sim_node/real_time_factor", factors.append, 10)
    assert spin_until(executor, lambda: bool(factors), timeout=30.0)
    assert 0.0 < factors[-1].data < 2.0
