"""FollowMonitor on made-up motions (no bus): a servo behind a moving goal by its travel time, or
slower than its goal but closing in, follows; a stalled one is reported once the goal has been out
of tolerance for the set time; a servo without an answer is not judged."""

from __future__ import annotations

import math

import numpy as np

from ik_solvers.hardware.follow_monitor import FollowLimits, FollowMonitor

DT = 0.01  # [s]
LIMITS = FollowLimits(tolerance=0.05, time=0.25)


def run(goal_at, present_at, seconds: float = 2.0, limits: FollowLimits = LIMITS) -> list[float]:
    """Times [s] at which the one servo was judged not following."""
    monitor = FollowMonitor(1, limits)
    flagged = []
    for k in range(round(seconds / DT)):
        t = k * DT
        if monitor.update(t, np.array([goal_at(t)]), np.array([present_at(t)]))[0]:
            flagged.append(t)
    return flagged


def test_a_servo_behind_its_moving_goal_by_its_travel_time_follows():
    assert run(lambda t: 2.0 * t, lambda t: 2.0 * max(0.0, t - 0.15)) == []


def test_a_servo_slower_than_its_goal_but_closing_in_follows():
    assert run(lambda t: 3.0 * t, lambda t: 0.5 * t) == []


def test_a_stalled_servo_is_reported_after_the_set_time_out_of_tolerance():
    flagged = run(lambda t: 1.0 * t, lambda t: 0.0)
    out_of_tolerance = 0.05  # [s] the goal is 0.05 rad away after 0.05 s at 1 rad/s
    assert flagged and out_of_tolerance + LIMITS.time <= flagged[0] <= out_of_tolerance + LIMITS.time + 2 * DT


def test_a_servo_held_off_its_goal_is_reported_and_one_that_arrives_is_cleared():
    flagged = run(lambda t: 0.3, lambda t: 0.0 if t < 1.0 else 0.3)
    assert flagged[0] <= LIMITS.time + DT and flagged[-1] < 1.0


def test_a_servo_that_did_not_answer_is_not_judged_and_zero_tolerance_turns_the_check_off():
    assert run(lambda t: t, lambda t: math.nan) == []
    assert run(lambda t: t, lambda t: 0.0, limits=FollowLimits(tolerance=0.0)) == []
