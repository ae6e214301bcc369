"""The free-standing ik_demo end to end (sim_node, ik_node, walk_node over DDS): its walking table.

One run (module fixture, about two minutes: postures, walking, a short arm phase), on the demo's
default servos (the packaged robot's realistic ones, ``config/servos/humanoid_servo_models.yaml``,
compensated by ik_node). Checks that the demo finishes, prints the walking section and writes ``results.json`` with the ``walk`` keys
in their units, the walking figures, and the issue's walking figures themselves (all but the
real-time factor, which depends on the machine's load and is measured by
``bench/walk_sim_bench.py --demo``): the same bounds are checked on more robots, faster, by
``test_walk_offline.py`` on the library and simulator loop.
"""

from __future__ import annotations

import math

import pytest
from demo_runner import check_walk_figures, run_demo

pytest.importorskip("rclpy")
pytest.importorskip("mujoco")

ARM_DURATION = 4.0  # [s] of arm motion
RUN_TIMEOUT = 540.0  # [s]: realistic servos (the default) cost the simulator more (backlash set each
# physics step from Python); at load 17-24 the demo ran at a real-time factor of 0.33-0.44 and 360 s
# stopped it in its last walking stop
WALK_KEYS = {
    "fell": bool,
    "distance_m": float,
    "commanded_distance_m": float,
    "heading_error_deg": float,
    "steps": int,
    "com_margin_min_mm": float,
    "torso_tilt_max_deg": float,
    "foot_slip_max_mm": float,
    "real_time_factor": float,
}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """Run the free-standing ``ik_demo`` once; (exit code, printed output, results.json, folder)."""
    return run_demo(tmp_path_factory.mktemp("demo_walk"), RUN_TIMEOUT, "--duration", str(ARM_DURATION))


def test_demo_finishes_and_prints_the_walking_table(demo):
    code, printed, _, _ = demo
    assert code == 0, printed
    for line in (
        "Walking (free-standing robot",
        "distance walked [m]",
        "smallest CoM margin",
        "real-time factor",
    ):
        assert line in printed, printed


def test_the_packaged_robot_walks_on_realistic_servos_by_default(demo):
    _, printed, _, _ = demo
    assert (
        "servos: " in printed and "humanoid_servo_models.yaml" in printed.split("servos: ")[1].split(";")[0]
    )


def test_results_have_the_walk_section_with_its_keys_and_types(demo):
    _, printed, results, _ = demo
    walk = results.get("walk", {})
    assert set(walk) == set(WALK_KEYS), printed
    for key, kind in WALK_KEYS.items():
        assert isinstance(walk[key], kind), (key, walk[key])
    assert walk["commanded_distance_m"] == pytest.approx(1.0)
    assert walk["steps"] > 10
    assert math.isfinite(walk["real_time_factor"]) and walk["real_time_factor"] > 0.0


def test_the_robot_walks_the_programme_within_the_figures(demo):
    _, printed, results, _ = demo
    check_walk_figures(results["walk"], printed)


def test_walking_figures_are_written(demo):
    _, _, results, folder = demo
    names = {path.split("/")[-1] for path in results.get("figures", [])}
    assert {"walk_top_view.png", "walk_filmstrip.png", "tip_paths.png"} <= names
    assert all((folder / name).stat().st_size > 1000 for name in names)


def test_arms_rows_cover_both_solvers(demo):
    _, printed, results, _ = demo
    rows = {(row["chain"], row["solver"]) for row in results.get("rows", [])}
    assert {("left_arm", "geometric"), ("left_arm", "jacobian"), ("right_arm", "jacobian")} <= rows, printed
