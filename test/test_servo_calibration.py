"""Servo calibration: angle <-> ticks round trips, the calibrated range, refusals naming the joint,
and the packaged files against the packaged URDF and its variants."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from ik_solvers.hardware.calibration import (
    CalibrationError,
    calibration_from_dict,
    load_calibration,
    urdf_limits,
)
from ik_solvers.model import RobotModel

REPO_ROOT = Path(__file__).resolve().parent.parent
URDF = REPO_ROOT / "urdf" / "humanoid.urdf"
# the bus calibrations; the servo models beside them (sim_node's servo_model) are no calibrations
FILES = sorted(
    path
    for path in (REPO_ROOT / "config" / "servos").glob("*.yaml")
    if not path.name.endswith("servo_models.yaml")
)


def joint_entry(**overrides) -> dict:
    entry = {
        "id": 1,
        "model": "XM430-W350",
        "direction": 1,
        "zero_ticks": 2048,
        "ticks_per_rev": 4096,
        "min_ticks": 1000,
        "max_ticks": 3000,
    }
    return {**entry, **overrides}


def calibration(protocol: str = "dynamixel", **joints) -> dict:
    return {"bus": {"protocol": protocol, "port": "/dev/null"}, "joints": joints or {"j": joint_entry()}}


def limits(model: RobotModel | None = None) -> dict[str, tuple[float, float]]:
    model = model or RobotModel.from_urdf_file(URDF)
    return {name: lim[:2] for name, lim in urdf_limits(model).items()}


@given(
    angle=st.floats(-1.5, 1.5),
    direction=st.sampled_from([1, -1]),
    zero=st.integers(1500, 2500),
)
def test_angle_to_ticks_to_angle_is_within_one_tick(angle, direction, zero):
    joint = calibration_from_dict(
        calibration(j=joint_entry(direction=direction, zero_ticks=zero, min_ticks=0, max_ticks=4095))
    ).joints[0]
    assert abs(joint.to_angle(joint.to_ticks(angle)) - angle) <= joint.radians_per_tick


@given(ticks=st.integers(1000, 3000), direction=st.sampled_from([1, -1]))
def test_ticks_to_angle_to_ticks_is_exact(ticks, direction):
    joint = calibration_from_dict(calibration(j=joint_entry(direction=direction))).joints[0]
    assert joint.to_ticks(joint.to_angle(ticks)) == ticks


@pytest.mark.parametrize("angle", [-10.0, 10.0, math.pi])
def test_no_goal_leaves_the_calibrated_range(angle):
    joint = calibration_from_dict(calibration()).joints[0]
    assert 1000 <= joint.to_ticks(angle) <= 3000


def test_direction_minus_one_mirrors_the_angle():
    plus, minus = (
        calibration_from_dict(calibration(j=joint_entry(direction=d))).joints[0].to_ticks(0.5)
        for d in (1, -1)
    )
    assert plus - 2048 == 2048 - minus > 0


@pytest.mark.parametrize(
    "data, words",
    [
        (calibration(protocol="canbus"), ["canbus", "dynamixel", "feetech"]),
        (calibration(j=joint_entry(model="XM999")), ["j", "XM999", "XM430-W350"]),
        (calibration(j=joint_entry(direction=0)), ["j", "direction"]),
        (calibration(j=joint_entry(min_ticks=3000, max_ticks=1000)), ["j", "3000..1000"]),
        (calibration(j=joint_entry(max_ticks=5000)), ["j", "0..4095"]),
        (calibration(protocol="feetech"), ["j", "feetech"]),
        (calibration(a=joint_entry(), b=joint_entry()), ["ids", "[1]"]),
        ({"bus": {"protocol": "dynamixel"}, "joints": {"j": {"id": 1}}}, ["j", "missing", "zero_ticks"]),
    ],
)
def test_a_wrong_calibration_is_refused_with_what_is_wrong(data, words):
    with pytest.raises(CalibrationError) as error:
        calibration_from_dict(data)
    assert all(word in str(error.value) for word in words), str(error.value)


@pytest.mark.parametrize("value", [math.nan, math.inf, 2048.5, "2048x", True, None])
def test_a_non_integer_value_is_refused_naming_the_joint_and_the_key(value):
    with pytest.raises(CalibrationError, match=r"^j: zero_ticks is .*; an integer is needed$"):
        calibration_from_dict(calibration(j=joint_entry(zero_ticks=value)))


def test_a_nan_in_a_calibration_file_is_a_one_line_refusal(tmp_path):
    text = (REPO_ROOT / "config" / "servos" / "humanoid_dynamixel.yaml").read_text()
    path = tmp_path / "nan.yaml"
    path.write_text(text.replace("zero_ticks: 2033", "zero_ticks: .nan"))
    with pytest.raises(CalibrationError, match=r"^l_knee: zero_ticks is nan; an integer is needed$"):
        load_calibration(path)


def test_a_joint_listed_twice_is_refused_naming_it_and_its_lines(tmp_path):
    text = (REPO_ROOT / "config" / "servos" / "humanoid_dynamixel.yaml").read_text()
    knee = next(line for line in text.splitlines() if line.strip().startswith("l_knee:"))
    path = tmp_path / "twice.yaml"
    path.write_text(text + knee.replace("id: 4,", "id: 40,") + "\n")
    with pytest.raises(CalibrationError, match=r"^l_knee is listed twice \(lines 12 and 35\)"):
        load_calibration(path)


def test_a_urdf_limit_beyond_the_servo_range_is_refused_naming_the_joint():
    narrow = calibration_from_dict(calibration(l_knee=joint_entry(min_ticks=2048, max_ticks=2500)))
    with pytest.raises(CalibrationError, match=r"l_knee: URDF limits \[0.000, 2.500\]"):
        narrow.check_against_limits(limits())


def test_a_joint_the_urdf_does_not_have_is_refused():
    with pytest.raises(CalibrationError, match="no_such_joint: not a movable joint"):
        calibration_from_dict(calibration(no_such_joint=joint_entry())).check_against_limits(limits())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_packaged_calibrations_cover_the_humanoid_and_fit_its_limits(path):
    loaded = load_calibration(path)
    assert set(loaded.joint_names) == set(limits()) and len(loaded.joints) == 26
    loaded.check_against_limits(limits())
    assert yaml.safe_load(path.read_text())["bus"]["baud_rate"] == 1_000_000


def test_a_robot_with_wider_limits_is_refused_by_the_humanoid_calibration():
    from humanoid_factory import HumanoidSpec, humanoid_urdf

    wider = RobotModel.from_urdf_string(humanoid_urdf(HumanoidSpec().scaled(limit_scale=1.3)))
    with pytest.raises(CalibrationError, match="l_knee: URDF limits"):
        load_calibration(FILES[0]).check_against_limits(limits(wider))


def test_a_robot_with_tighter_limits_fits_the_humanoid_calibration():
    from humanoid_factory import HumanoidSpec, humanoid_urdf

    tighter = RobotModel.from_urdf_string(humanoid_urdf(HumanoidSpec().scaled(limit_scale=0.8)))
    load_calibration(FILES[0]).check_against_limits(limits(tighter))
