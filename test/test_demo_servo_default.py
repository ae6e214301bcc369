"""ik_demo's servo default (no ROS, no simulation): realistic servos for the packaged robot walking,
ideal ones on a fixed base and for a robot of ``--urdf``, whatever ``--servo-model`` says above all;
and its walk closed loop unless ``--open-loop`` or a ``--walk-config`` file says otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from ik_solvers.demo.free_standing import CLOSED_LOOP, closed_loop_overrides, default_servo_model
from ik_solvers.demo.ik_demo import parse_arguments


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ([], "humanoid_servo_models.yaml"),
        (["--walk-only", "--servo-bus", "dynamixel"], "humanoid_servo_models.yaml"),
        (["--fixed-base"], "ideal"),
        (["--urdf", "other.urdf"], "ideal"),
        (["--servo-model", "ideal"], "ideal"),
        (["--fixed-base", "--servo-model", "mx64"], "mx64"),
    ],
)
def test_the_demo_picks_its_servos(arguments, expected):
    chosen = default_servo_model(parse_arguments(arguments))
    assert Path(chosen).name == expected
    if expected.endswith(".yaml"):
        assert Path(chosen).is_file()


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ([], CLOSED_LOOP),
        (["--servo-bus", "dynamixel"], CLOSED_LOOP),
        (["--open-loop"], {}),
        (["--walk-config", "config/walk_fast.yaml"], {}),
    ],
)
def test_the_demo_walks_closed_loop_unless_told_otherwise(arguments, expected):
    overrides = closed_loop_overrides(parse_arguments(arguments))
    assert overrides == expected
    if overrides:
        assert overrides["stabilise"] is True
