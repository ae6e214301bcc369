"""``ik_demo --urdf`` on the ROBOTIS OP3's xacro as its maker publishes it (test/descriptions/
op3_description, Apache-2.0): sim_node, ik_node and walk_node over DDS stand it up, walk it forward
and move its 3-joint arms, nothing edited by hand.

19 of the meshes the xacro names are not in the test data (see its README), so the demo is told
to simulate without them (``--drop-missing-meshes``: only the feet touch the floor); without that
option it refuses and names the first missing mesh. ``--walk-only`` leaves out the posture phases,
the turn and the sidestep so that the run fits a CI test (about a minute of simulated time). The
walk is held to the same figures as the packaged robot's (test_demo_walk.py): 1 m within 10 %,
heading error, CoM margin, tilt and sole slip.
"""

from __future__ import annotations

import pytest
from demo_runner import check_walk_figures, run_demo
from description_data import OP3_XACRO

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

RUN_TIMEOUT = 420.0  # [s]: under two minutes on an idle 2-core machine, 5 min at load 15
ARM_DURATION = 4.0  # [s] of arm motion after the walk


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("op3_demo")
    return run_demo(
        folder,
        RUN_TIMEOUT,
        "--urdf",
        str(OP3_XACRO),
        "--drop-missing-meshes",
        "--walk-only",
        "--duration",
        str(ARM_DURATION),
    )


def test_the_op3_stands_walks_forward_and_moves_its_arms(demo):
    code, printed, results, _ = demo
    assert code == 0, printed
    assert "19 shape(s) left out" in printed and "Walking (free-standing robot" in printed, printed
    walk = results["walk"]
    assert walk["commanded_distance_m"] == 1.0 and walk["steps"] >= 10, printed
    check_walk_figures(walk, printed)  # the packaged robot's figures: docs/your-robot.md
    rows = {(row["chain"], row["solver"]) for row in results["rows"]}
    assert rows == {("left_arm", "jacobian"), ("right_arm", "jacobian")}, printed  # 3 joints: no closed form
    for row in results["rows"]:
        assert row["targets"] > 0 and row["success_percent"] == 100.0, printed


def test_missing_meshes_are_refused_by_name_without_the_option(tmp_path):
    code, printed, _, _ = run_demo(tmp_path, RUN_TIMEOUT, "--urdf", str(OP3_XACRO))
    assert code == 1, printed
    assert "mesh 'package://op3_description/meshes/body.stl' of link 'body_link' not found" in printed
    assert "--drop-missing-meshes" in printed
