"""ServoBridge (no ROS) through the vendors' SDKs against servo_bus_emulator over a real pty:
start-up checks and refusals, torque only after reading, velocity-limited approach, holding,
the bus watchdog (armed so that a pause after start-up leaves no servo refusing goals; an expiry the
bridge did not see found and re-armed), a stalled servo named as not following (on the servos'
clock when it is not the wall's), torque off at shutdown. Both protocols.

Time for the bridge's goal ramp is given explicitly (``now``), so the expected goals are exact;
the bus itself runs in real time.
"""

from __future__ import annotations

import itertools
import math
import time
from pathlib import Path

import pytest

from ik_solvers.hardware.bridge import ServoBridge, StartupError
from ik_solvers.hardware.bridge_config import BridgeConfig
from ik_solvers.hardware.bus_backends import make_bus
from ik_solvers.hardware.calibration import load_calibration, urdf_limits
from ik_solvers.hardware.emulator.client import EmulatorProcess
from ik_solvers.hardware.goal_stepper import limb_chains
from ik_solvers.limbs.tree import find_limbs
from ik_solvers.model import RobotModel

REPO_ROOT = Path(__file__).resolve().parent.parent
CALIBRATIONS = {p: REPO_ROOT / "config" / "servos" / f"humanoid_{p}.yaml" for p in ("dynamixel", "feetech")}
MODEL = RobotModel.from_urdf_file(REPO_ROOT / "urdf" / "humanoid.urdf")
LIMITS = urdf_limits(MODEL)
VELOCITY = {name: lim[2] for name, lim in LIMITS.items()}
DT = 0.01  # [s] between cycles, as the bridge is told


@pytest.fixture(params=sorted(CALIBRATIONS))
def protocol(request) -> str:
    return request.param


def emulator(protocol: str, tmp_path: Path, *args: str) -> EmulatorProcess:
    return EmulatorProcess(
        ["--calibration", str(CALIBRATIONS[protocol]), "--return-delay", "0", *args],
        tmp_path / "emulator.log",
    )


def bridge_on(port: str, protocol: str, **config) -> ServoBridge:
    calibration = load_calibration(CALIBRATIONS[protocol])
    bus = make_bus(calibration.protocol, port, calibration.baud_rate)
    return ServoBridge(calibration, bus, VELOCITY, BridgeConfig(**config), limb_chains(MODEL))


def test_start_up_refuses_a_missing_servo_naming_its_joint(protocol, tmp_path):
    with emulator(protocol, tmp_path) as bus:
        bus.command("missing 4")
        bridge = bridge_on(bus.port, protocol)
        with pytest.raises(StartupError, match=r"l_knee \(id 4\): no answer") as error:
            bridge.start(0.0)
        assert "l_ankle" not in str(error.value)
        assert all(s["torque"] == 0 for s in bus.state().values()), "torque enabled on half a robot"


def test_start_up_refuses_servos_of_another_model(tmp_path):
    with (
        emulator("dynamixel", tmp_path, "--model", "XL430-W250") as bus,
        pytest.raises(
            StartupError, match=r"l_hip_joint \(id 1\): model number 1060, the calibration says XM430"
        ),
    ):
        bridge_on(bus.port, "dynamixel").start(0.0)


def test_start_up_refuses_a_port_that_does_not_exist(tmp_path):
    with pytest.raises(StartupError, match="no_such_port"):
        bridge_on(str(tmp_path / "no_such_port"), "feetech").start(0.0)


def test_torque_comes_on_holding_the_present_positions(protocol, tmp_path):
    with emulator(protocol, tmp_path, "--start-offset", "37") as bus:
        before = bus.state()
        assert all(s["torque"] == 0 for s in before.values())
        bridge = bridge_on(bus.port, protocol)
        bridge.start(0.0)
        after = bus.state()
        assert all(s["torque"] == 1 for s in after.values())
        assert {i: s["goal"] for i, s in after.items()} == {
            i: round(s["position"]) for i, s in before.items()
        }
        bridge.shutdown()


def test_the_first_command_is_approached_at_the_velocity_limit(protocol, tmp_path):
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol)
        bridge.start(0.0)
        knee = bridge.calibration.by_id(4)
        goals = [knee.to_angle(bus.state()[4]["goal"])]
        bridge.set_command(["l_knee"], [2.0])
        for k in range(1, 6):
            bridge.cycle(k * DT)
            goals.append(knee.to_angle(bus.state()[4]["goal"]))
        steps = [b - a for a, b in itertools.pairwise(goals)]
        limit = DT * VELOCITY["l_knee"] + knee.radians_per_tick
        assert all(-knee.radians_per_tick <= step <= limit for step in steps), steps
        assert goals[-1] > goals[0] + limit, "the goal did not move toward the command"
        if bridge.health.total_errors == 0:  # a cycle with a bus error holds (a loaded machine)
            assert all(abs(step - DT * VELOCITY["l_knee"]) <= 2 * knee.radians_per_tick for step in steps)
        bridge.shutdown()


def test_a_command_within_one_step_reaches_the_goal_register_in_one_cycle(protocol, tmp_path):
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol)
        bridge.start(0.0)
        targets = {j.joint: j.to_angle(j.zero_ticks) + 0.02 * j.direction for j in bridge.joints}
        targets = {name: min(max(a, LIMITS[name][0]), LIMITS[name][1]) for name, a in targets.items()}
        bridge.set_command(list(targets), list(targets.values()))
        reading = bridge.cycle(DT)
        goals = {i: s["goal"] for i, s in bus.state().items()}
        assert goals == {j.servo_id: j.to_ticks(targets[j.joint]) for j in bridge.joints}
        assert reading is not None and len(reading.names) == 26
        bridge.shutdown()


def test_a_stale_command_is_not_followed(protocol, tmp_path):
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol, command_timeout=0.05)
        bridge.start(0.0)
        elbow = bridge.calibration.by_joint("l_elbow").servo_id
        start = bus.state()[elbow]["goal"]
        bridge.set_command(["l_elbow"], [-2.0])  # far: not reached within 0.05 s at the velocity limit
        goals = []
        for k in range(1, 15):
            bridge.cycle(k * DT)
            goals.append(bus.state()[elbow]["goal"])
        assert goals[0] != start and len(set(goals[8:])) == 1 and goals[8] != goals[0]  # moved, then held
        bridge.shutdown()


def test_a_late_cycle_does_not_make_a_command_stale_before_the_goals_had_their_time(protocol, tmp_path):
    # A cycle 0.8 s late (the bridge not scheduled) used to find the last command older than the
    # command timeout: the goals froze short of it, and ik_node, holding still, sent no other (the
    # demo's arms 58 mm off at a hold, beside a CPU-bound neighbour at load 10-18).
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol, command_timeout=0.5)
        bridge.start(0.0)
        joint = bridge.calibration.by_joint("l_elbow")
        start = joint.to_angle(bus.state()[joint.servo_id]["goal"])
        target = max(start - 0.3, bridge.low[bridge.index["l_elbow"]])
        bridge.set_command(["l_elbow"], [target])
        bridge.cycle(DT)
        now = DT + 0.8
        for k in range(50):
            bridge.cycle(now + k * DT)
        assert bus.state()[joint.servo_id]["goal"] == joint.to_ticks(target)
        bridge.shutdown()


def test_a_far_goal_brings_every_joint_of_a_limb_in_the_same_cycle(tmp_path):
    # Each joint clamped on its own, a leg sent far had its joints arrive in 4 to 13 cycles: the
    # path bent (ik_node's command filter bent a leg so, its sole pitched 27 degrees: docs/node.md).
    # Along the straight line all arrive when the furthest does; an arm sent further (its own
    # chain) does not slow the leg. Ways toward each joint's farther limit.
    with emulator("dynamixel", tmp_path) as bus:
        bridge = bridge_on(bus.port, "dynamixel", command_timeout=5.0)
        bridge.start(0.0)
        limbs = find_limbs(MODEL)
        leg, arm = limbs.legs[0].joint_names, limbs.arms[0].joint_names
        longest = 12.5 * min(VELOCITY[name] for name in leg) * DT  # [rad] 12.5 cycles of the slowest
        shares = dict(zip(leg, (1.0, 0.8, 0.6, 0.5, 0.4, 0.3))) | dict.fromkeys(arm, 2.0)
        targets = {name: _toward_the_farther_limit(bridge, name, shares[name] * longest) for name in shares}
        bridge.set_command(list(targets), list(targets.values()))
        arrived = {}
        for cycle in range(1, 100):
            bridge.cycle(cycle * DT)
            goals = bus.state()
            for name, target in targets.items():
                joint = bridge.calibration.by_joint(name)
                if name not in arrived and goals[joint.servo_id]["goal"] == joint.to_ticks(target):
                    arrived[name] = cycle
        bridge.shutdown()
    assert {arrived[name] for name in leg} == {13}, arrived
    assert min(arrived[name] for name in arm) > 13, arrived


def test_a_joint_in_two_chains_is_refused_naming_it():
    calibration = load_calibration(CALIBRATIONS["dynamixel"])
    with pytest.raises(ValueError, match="joint 'l_knee' is in two chains .0 and 1.; one chain each"):
        ServoBridge(calibration, None, VELOCITY, BridgeConfig(), [("l_hip_joint", "l_knee"), ("l_knee",)])


def _toward_the_farther_limit(bridge: ServoBridge, name: str, way: float) -> float:
    """[rad] ``name``'s goal moved ``way`` toward its farther calibrated limit, at most 0.9 of the room."""
    k = bridge.index[name]
    start, low, high = bridge.goals[k], bridge.low[k], bridge.high[k]
    room = max(high - start, low - start, key=abs)
    return start + math.copysign(min(way, 0.9 * abs(room)), room)


def test_a_goal_outside_the_calibrated_range_is_never_written(protocol, tmp_path):
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol, velocity_scale=1000.0)
        bridge.start(0.0)
        names = list(bridge.calibration.joint_names)
        bridge.set_command(names, [math.pi] * 26)
        bridge.cycle(DT)
        goals = bus.state()
        assert all(j.min_ticks <= goals[j.servo_id]["goal"] <= j.max_ticks for j in bridge.joints)
        bridge.set_command(names, [-math.pi] * 26)
        bridge.cycle(2 * DT)
        goals = bus.state()
        assert all(j.min_ticks <= goals[j.servo_id]["goal"] <= j.max_ticks for j in bridge.joints)
        bridge.shutdown()


def test_the_dynamixel_bus_watchdog_is_armed_and_rearmed_after_it_expired(tmp_path):
    with emulator("dynamixel", tmp_path) as bus:
        bridge = bridge_on(bus.port, "dynamixel", bus_watchdog=0.1)
        bridge.start(0.0)
        watchdogs = lambda: {s["watchdog"] for s in bus.state().values()}
        bridge.bus.ping(1)  # the answer comes after the Sync Writes arming the watchdog were taken
        assert watchdogs() <= {5, 255}  # 5 x 20 ms (expired already if this machine stalled us)
        deadline = time.monotonic() + 10.0
        while watchdogs() != {255} and time.monotonic() < deadline:  # the bridge is silent: they expire
            time.sleep(0.02)
        assert watchdogs() == {255}
        bridge.cycle(1.0)
        assert watchdogs() == {5}
        bridge.shutdown()


def test_shutdown_turns_the_torque_off(protocol, tmp_path):
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol)
        bridge.start(0.0)
        bridge.cycle(DT)
        bridge.shutdown()
        assert all(s["torque"] == 0 for s in bus.state().values())


def run_cycles(bridge: ServoBridge, seconds: float, until=lambda: False) -> None:
    """Cycle at 100 Hz on the wall clock (the follow check judges real motion) for ``seconds`` or
    until ``until()``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not until():
        bridge.cycle(time.monotonic())
        time.sleep(DT)


def test_a_pause_between_start_up_and_the_first_cycle_leaves_no_servo_refusing_goals(tmp_path):
    # A node that starts its cycle timer 0.24 s after start(), less than the bus watchdog's 0.25 s:
    # before the fix the first servos had heard nothing since their own torque-enable write, earlier
    # still; their watchdogs expired and refused every later goal, unseen (a Sync Write has no answer).
    with emulator("dynamixel", tmp_path, "--return-delay", "250") as bus:
        bridge = bridge_on(bus.port, "dynamixel")
        bridge.start(time.monotonic())
        time.sleep(max(0.0, bridge.last_write + 0.24 - time.monotonic()))
        targets = [j.to_angle(j.zero_ticks) + 0.05 * j.direction for j in bridge.joints]
        bridge.set_command(list(bridge.calibration.joint_names), targets)
        run_cycles(bridge, 0.3)
        state = bus.state()
        written = dict(zip(bridge.ids, bridge.calibration.to_ticks(bridge.goals)))
        refusing = [j.joint for j in bridge.joints if state[j.servo_id]["goal"] != written[j.servo_id]]
        assert not refusing, (
            f"goals refused by {refusing}; watchdogs {[s['watchdog'] for s in state.values()]}"
        )
        bridge.shutdown()


def test_a_watchdog_that_expired_unseen_is_found_by_the_follow_check_and_rearmed(tmp_path):
    with emulator("dynamixel", tmp_path) as bus:
        bridge = bridge_on(bus.port, "dynamixel")
        bridge.start(time.monotonic())
        elbow = bridge.calibration.by_joint("l_elbow")
        # What an expiry the bridge did not see leaves: the register at -1, goals refused.
        bridge.bus.write_register(elbow.servo_id, "bus_watchdog", 0xFF)
        start = elbow.to_angle(bus.state()[elbow.servo_id]["position"])
        bridge.set_command(["l_elbow"], [start - 0.5])
        reached = lambda: abs(elbow.to_angle(bus.state()[elbow.servo_id]["position"]) - (start - 0.5)) < 0.01
        run_cycles(bridge, 5.0, reached)
        events = [e.text for e in bridge.health.events]
        assert "bus watchdog of l_elbow (id 16) had expired (goals refused): re-armed" in events, events
        assert reached()
        bridge.shutdown()


def follow_events(bridge: ServoBridge) -> list:
    """The events about servos following their goals, oldest first."""
    return [e for e in bridge.health.events if e.key.startswith("follow ")]


def test_a_stalled_servo_is_named_as_not_following_and_cleared_when_it_moves_again(protocol, tmp_path):
    with emulator(protocol, tmp_path) as bus:
        bridge = bridge_on(bus.port, protocol)
        bridge.start(time.monotonic())
        elbow = bridge.calibration.by_joint("l_elbow")
        bus.command(f"stall {elbow.servo_id}")
        start = elbow.to_angle(bus.state()[elbow.servo_id]["position"])
        bridge.set_command(["l_elbow", "r_elbow"], [start - 0.5, -0.5])
        record = bridge.health.servos[elbow.servo_id]
        run_cycles(bridge, 5.0, lambda: bool(record.not_following))
        assert record.not_following.startswith(f"at {start:.3f} rad, goal "), record
        assert [s.joint for s in bridge.health.not_following()] == ["l_elbow"]
        last = follow_events(bridge)[-1]  # a loaded machine may add a late cycle's event
        assert last.level == "error"
        assert last.text.startswith("l_elbow (id 16) does not follow its goal: at ")
        bus.command(f"restore {elbow.servo_id}")
        run_cycles(bridge, 5.0, lambda: not record.not_following)
        assert not record.not_following
        assert follow_events(bridge)[-1].text == "l_elbow (id 16) follows its goal again"
        bridge.shutdown()


def test_the_follow_check_judges_on_the_servos_clock_when_it_runs_slower_than_the_wall(tmp_path):
    # servo_bridge behind a lock-stepped simulator (ik_demo --servo-bus): the servos move in
    # simulated time, which a loaded machine ran at 0.3-0.5 of the wall clock; judged on the wall
    # clock, arms still travelling toward their goals were reported (53 not_following in one demo).
    with emulator("dynamixel", tmp_path) as bus:
        bridge = bridge_on(bus.port, "dynamixel")
        bridge.start(time.monotonic())
        origin = time.monotonic()
        bridge.servo_clock = lambda: 0.1 * (time.monotonic() - origin)  # a world at 0.1 x real time
        elbow = bridge.calibration.by_joint("l_elbow")
        bus.command(f"stall {elbow.servo_id}")  # does not move: the goal leaves it at once
        start = elbow.to_angle(bus.state()[elbow.servo_id]["position"])
        bridge.set_command(["l_elbow"], [start - 0.5])
        record = bridge.health.servos[elbow.servo_id]
        run_cycles(bridge, 2.0)  # 0.2 s of the servos' time, less than follow_time (on the wall: ~1.3 s)
        assert not record.not_following, "judged on the wall clock"
        run_cycles(bridge, 8.0, lambda: bool(record.not_following))
        assert record.not_following and bridge.servo_clock() >= bridge.config.follow.time
        bridge.shutdown()
