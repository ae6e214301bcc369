"""ik_demo --fixed-base --servo-bus: the fixed-base demo through servo_bridge and the emulated bus
(MuJoCo behind it), for both protocols; the usual table plus the bus section, IK and settled
tracking as without the bus. The walk through the bus: ``test_demo_bus_walk.py``."""

from __future__ import annotations

import json
import subprocess

import pytest

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from ros_helpers import ProcessRunner

DURATION = 16.0  # [s] of motion, two phases: holds long enough to be sampled on a loaded machine
RUN_TIMEOUT = 180.0  # [s]
SETTLED_TRACKING_BOUND = 10.0  # [mm], as for the demo without the bus


@pytest.fixture(scope="module", params=["dynamixel", "feetech"])
def demo(request, tmp_path_factory):
    """One ``ik_demo --servo-bus <protocol>`` run: (exit code, printed output, results.json)."""
    output = tmp_path_factory.mktemp(f"demo_{request.param}")
    runner = ProcessRunner(log_dir=output)
    process = runner.start_console_script(
        "ik_demo",
        "--fixed-base",
        "--duration",
        str(DURATION),
        "--servo-bus",
        request.param,
        "--output",
        str(output / "out"),
    )
    try:
        process.wait(timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        runner.stop_all()
    results_file = output / "out" / "results.json"
    print(runner.output(process))  # the table, in the test report when a check fails
    results = json.loads(results_file.read_text()) if results_file.is_file() else {}
    return request.param, process.returncode, runner.output(process), results


def test_the_demo_through_the_bus_prints_the_table_and_the_bus_section(demo):
    protocol, code, printed, results = demo
    assert code == 0, printed
    assert "IK ok %" in printed and f"servo bus: {protocol}, 26 servos" in printed
    bus = results["servo_bus"]
    assert bus["protocol"] == protocol and bus["servos"] == 26
    assert bus["cycle_hz"] > 0 and bus["errors"] >= 0 and bus["good_cycles"] > 0
    assert bus["cycle_hz_p1"] > 0 and bus["overruns"] >= 0
    # the bridge stops before the emulator closes its pty: no port error at the end
    assert "port" not in bus["errors_by_kind"], bus


def test_ik_succeeds_and_the_robot_settles_on_its_targets_through_the_bus(demo):
    _, _, printed, results = demo
    for row in results["rows"]:
        assert row["success_percent"] == 100.0, f"{row}\n{printed}"
        assert row["settled_position_max"] < SETTLED_TRACKING_BOUND, f"{row}\n{printed}"
