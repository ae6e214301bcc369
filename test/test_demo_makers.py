"""``ik_demo --urdf`` on humanoids described the way other makers describe them (test/maker_humanoids.py):
the fixed-base demo runs end to end on a robot without ``base_link`` or sole frames, its root a
frame on the floor (one run, ~40 s); a robot the demo cannot move is refused with the reason."""

from __future__ import annotations

import re

import pytest
from demo_runner import run_demo
from maker_humanoids import MakerSpec, maker_urdf

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

RUN_TIMEOUT = 150.0  # [s]
CHAINS = ("left_leg", "right_leg", "left_arm", "right_arm")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("maker_demo")
    path = folder / "maker.urdf"
    path.write_text(maker_urdf(MakerSpec(name="maker", root_on_floor=True)))
    return run_demo(folder, RUN_TIMEOUT, "--fixed-base", "--quick", "--urdf", str(path))


def test_the_fixed_base_demo_runs_on_a_makers_humanoid(demo):
    code, printed, results, _ = demo
    assert code == 0, printed
    rows = {(row["chain"], row["solver"]): row for row in results["rows"]}
    assert {(chain, "geometric") for chain in CHAINS} <= set(rows), printed  # auto's pick: closed forms
    for (chain, solver), row in rows.items():
        assert row["targets"] > 0 and row["success_percent"] == 100.0, f"{chain} ({solver}):\n{printed}"


def test_a_robot_without_6_dof_legs_is_refused_with_the_reason(tmp_path):
    urdf = maker_urdf(MakerSpec())
    for side in "LR":
        urdf = urdf.replace(
            f'<joint name="{side}AnkleRoll" type="revolute">', f'<joint name="{side}AnkleRoll" type="fixed">'
        )
    path = tmp_path / "five_dof_legs.urdf"
    path.write_text(urdf)
    code, printed, _, _ = run_demo(tmp_path, RUN_TIMEOUT, "--urdf", str(path))
    assert code == 1, printed
    assert re.search(
        r"ik_demo: cannot run on .*no 6-DoF legs: the two limbs ending lowest must have 6", printed
    ), printed
