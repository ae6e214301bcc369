"""ik_demo end to end (ik_node + sim_node + target generator over DDS), shortened; its table meets thresholds.

One demo run (module fixture, ~25 s) feeds every test here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from demo_runner import run_demo

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

from ik_solvers.demo.metrics import ChainMetrics, Recording, Segment, chain_metrics, format_table

DURATION = 10.0  # [s] of motion, two phases
RUN_TIMEOUT = 150.0  # [s]
SETTLED_TRACKING_BOUND = 10.0  # [mm] simulated tip vs target once targets hold still (servo sag ~2-3 mm)
IK_POSITION_BOUND = 1.0  # [mm] the node's own solutions (solvers converge to 0.1 mm or better)
CHAINS = ("left_leg", "right_leg", "left_arm", "right_arm")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Run ``ik_demo --duration 10`` once; (exit code, printed output, results.json, output folder)."""
    return run_demo(tmp_path_factory.mktemp("demo"), RUN_TIMEOUT, "--fixed-base", "--duration", str(DURATION))


def test_demo_finishes_and_prints_the_table(demo):
    code, printed, _, _ = demo
    assert code == 0, printed
    assert "IK ok %" in printed and "settled mm max" in printed
    assert "arms switched to the jacobian solver" in printed


def test_table_has_every_chain_and_both_arm_solvers(demo):
    _, printed, results, _ = demo
    rows = {(row["chain"], row["solver"]) for row in results.get("rows", [])}
    assert {(c, "geometric") for c in CHAINS} <= rows, printed
    assert {("left_arm", "jacobian"), ("right_arm", "jacobian")} <= rows, printed


def test_ik_succeeds_on_every_generated_target(demo):
    _, printed, results, _ = demo
    for row in results["rows"]:
        assert row["targets"] > 0
        assert row["success_percent"] == 100.0, f"{row['chain']} ({row['solver']}):\n{printed}"
        assert row["ik_position"][1] < IK_POSITION_BOUND, row


def test_steady_state_tracking_error_is_bounded(demo):
    _, printed, results, _ = demo
    for row in results["rows"]:
        assert row["settled_position_max"] < SETTLED_TRACKING_BOUND, f"{row}\n{printed}"
        assert row["command_rate"] > 10.0, row


def test_figures_are_written_and_not_empty(demo):
    _, _, results, output = demo
    names = {Path(f).name for f in results["figures"]}
    assert {"tip_paths.png", "robot_poses.png"} | {f"joints_{c}.png" for c in CHAINS} <= names
    for figure in results["figures"]:
        data = Path(figure).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 10_000, figure
    assert Path(output / "logs" / "sim_node.log").is_file()


def test_metrics_of_an_empty_recording_are_not_a_number():
    chain = _packaged_chain()
    recording = Recording({"left_leg": chain})
    row = chain_metrics(
        recording,
        Segment("left_leg", "geometric", 0.0, 1.0),
        lambda t: np.eye(4)[None],
        lambda t: t > 0,
        None,
    )
    assert isinstance(row, ChainMetrics) and row.targets == 0 and np.isnan(row.success_percent)
    assert "left_leg" in format_table([row])


def _packaged_chain():
    from ik_solvers import RobotModel
    from ik_solvers.resources import package_share_path

    return RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain("base_link", "l_sole")
