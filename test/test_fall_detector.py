"""The fall detector (no ROS): thresholds scaled to the robot's size on scripted states; in MuJoCo,
a pushed robot's fall detected at least 0.2 s before its body hits the floor, and no alarm while
it walks forward and sideways or takes a push it survives."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from ik_solvers.parameter_rules import ParameterError
from ik_solvers.sensors import FallDetector, FallThresholds

LEAD = 0.2  # [s] the figure: a fall detected at least this long before the body hits the floor


def _roll(angle: float) -> np.ndarray:
    """(w, x, y, z) of a rotation by ``angle`` [rad] about x."""
    return np.array([math.cos(angle / 2), math.sin(angle / 2), 0.0, 0.0])


def test_upright_and_still_is_no_fall():
    state = FallDetector(0.3).update(0.0, np.array([1.0, 0, 0, 0]), np.zeros(3))
    assert not state.fallen and state.reason == ""


def test_a_tilt_beyond_the_threshold_held_for_the_confirmation_time_is_a_fall_and_stays_one():
    detector = FallDetector(0.3)  # T_c = 0.175 s: confirmed after 0.13 s
    assert not detector.update(0.0, _roll(math.radians(15)), np.zeros(3)).fallen
    assert not detector.update(0.1, _roll(math.radians(25)), np.zeros(3)).fallen  # not yet confirmed
    assert not detector.update(0.2, _roll(math.radians(25)), np.zeros(3)).fallen
    state = detector.update(0.24, _roll(math.radians(26)), np.zeros(3))
    assert state.fallen and state.time == 0.24 and "predicted tilt 26.0 deg > 20.0" in state.reason
    assert detector.update(0.3, np.array([1.0, 0, 0, 0]), np.zeros(3)).fallen  # latched
    detector.reset()
    assert not detector.update(0.4, np.array([1.0, 0, 0, 0]), np.zeros(3)).fallen


def test_a_swing_shorter_than_the_confirmation_time_is_no_fall():
    """walk.launch.py's start: the torso pitches 10 deg and back within 0.1 s (predicted 34 deg)."""
    detector = FallDetector(0.45)  # T_c = 0.214 s: 0.16 s to confirm
    for t in np.arange(0.0, 0.1, 0.004):
        assert not detector.update(t, _roll(math.radians(10)), np.array([2.0, 0.0, 0.0])).fallen
    assert not detector.update(0.1, _roll(math.radians(3)), np.array([-0.5, 0.0, 0.0])).fallen


def test_tilting_fast_towards_the_ground_is_seen_early_tilting_back_is_not():
    detector = FallDetector(0.3, FallThresholds(confirm=0.0))  # T_c = 0.175 s
    towards = detector.update(0.0, _roll(math.radians(10)), np.array([1.2, 0.0, 0.0]))
    assert towards.tilt_rate == pytest.approx(1.2) and towards.fallen  # 10 deg + 0.175 s x 1.2 rad/s = 22 deg
    detector.reset()
    back = detector.update(0.0, _roll(math.radians(10)), np.array([-1.2, 0.0, 0.0]))
    assert back.tilt_rate == pytest.approx(-1.2) and not back.fallen


def test_a_fast_swing_of_an_upright_torso_is_no_fall():
    """Bending the knees from straight legs swings the torso at ~2 rad/s without tilting it (the
    start of walk.launch.py): predicted 20 deg, but the tilt is under ``min_tilt``."""
    detector = FallDetector(0.3, FallThresholds(confirm=0.0))
    state = detector.update(0.0, _roll(math.radians(0.7)), np.array([2.0, 0.0, 0.0]))
    assert state.predicted_tilt > math.radians(20) and not state.fallen


def test_the_rate_threshold_scales_with_the_centre_of_mass_height():
    small, tall = (FallDetector(h, FallThresholds(confirm=0.0)) for h in (0.2, 0.8))
    assert small.rate_limit == pytest.approx(2 * tall.rate_limit)  # 1 / T_c = sqrt(g / h)
    gyro = np.array([0.0, -0.5 * (small.rate_limit + tall.rate_limit), 0.0])  # swinging back up, fast
    pitched = np.array([math.cos(0.01), 0.0, math.sin(0.01), 0.0])
    assert tall.update(0.0, pitched, gyro).fallen and not small.update(0.0, pitched, gyro).fallen


@pytest.mark.parametrize(("field", "value"), [("tilt", 0.0), ("rate", -1.0), ("lookahead", math.inf)])
def test_thresholds_out_of_range_are_refused(field, value):
    with pytest.raises(ParameterError, match=f"fall.{field}"):
        FallThresholds(**{field: value})
    with pytest.raises(ValueError, match="com_height"):
        FallDetector(0.0)


@pytest.fixture(scope="module")
def fall_bench():
    pytest.importorskip("mujoco")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
    import fall_bench

    return fall_bench


@pytest.fixture(scope="module")
def urdf():
    from ik_solvers.resources import package_share_path

    return package_share_path("urdf", "humanoid.urdf").read_text()


@pytest.mark.parametrize(("direction", "speed"), [((1, 0), 0.6), ((0, -1), 1.0)])
def test_a_pushed_robots_fall_is_detected_long_before_it_hits_the_floor(fall_bench, urdf, direction, speed):
    detected, impact, final_tilt = fall_bench.push_trial(urdf, direction, speed, noise=False, walking=False)
    assert final_tilt > 45.0  # it fell
    assert detected is not None and impact is not None
    assert impact - detected >= LEAD


def test_a_noisy_imu_with_the_ahrs_detects_a_walking_fall_in_time(fall_bench, urdf):
    detected, impact, final_tilt = fall_bench.push_trial(urdf, (0, -1), 0.4, noise=True, walking=True)
    assert final_tilt > 45.0
    assert impact - detected >= LEAD


def test_no_alarm_walking_nor_after_a_push_the_robot_survives(fall_bench, urdf):
    detected, _, final_tilt = fall_bench.push_trial(urdf, (0, 1), 0.6, noise=False, walking=False)
    assert final_tilt < 5.0 and detected is None  # pushed sideways, it rocks and stands
    watcher = fall_bench.walker_for(urdf, noise=True)
    speeds = watcher.walker.generator.max_command
    for command in ((0.9 * speeds[0], 0.0, 0.0), (0.0, 0.9 * speeds[1], 0.0), (0.0, 0.0, 0.9 * speeds[2])):
        for _ in range(400):
            watcher.tick(command)
    assert watcher.detected is None
    assert watcher.largest < 0.5 * watcher.detector.thresholds.tilt
