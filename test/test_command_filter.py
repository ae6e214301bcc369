"""CommandFilter: commands stay finite, within limits, and within the velocity limit per step."""

from __future__ import annotations

import numpy as np

from ik_solvers.control.command_filter import CommandFilter

LOWER, UPPER = np.array([-1.0, -2.0, -np.pi]), np.array([1.0, 2.0, np.pi])
VELOCITY = np.array([2.0, 4.0, np.inf])


def make_filter(continuous=(False, False, False)) -> CommandFilter:
    return CommandFilter(LOWER, UPPER, VELOCITY, np.array(continuous))


def test_a_far_goal_is_approached_in_steps_no_larger_than_the_fraction_of_the_velocity_limit():
    shaping = make_filter()
    step = shaping.step(np.zeros(3), np.array([1.0, -2.0, 0.0]), fraction=0.5, dt=0.01)
    np.testing.assert_allclose(step, [0.01, -0.02, 0.0])


def test_a_far_goal_is_approached_along_the_straight_line_and_every_joint_arrives_together():
    """Bending a leg (hip, knee, ankle pitch alike limited): the sole stays parallel to the torso
    (the three angles sum to 0) all the way; clamped joint by joint it was pitched up to 0.48 rad."""
    shaping = CommandFilter(np.full(3, -2.0), np.full(3, 2.0), np.full(3, 4.8))
    goal, command, arrivals = np.array([-0.51, 1.07, -0.56]), np.zeros(3), []
    for period in range(1, 40):
        command = shaping.step(command, goal, 1.0, 0.01)
        assert abs(command.sum()) <= abs(goal.sum()) + 1e-12
        assert np.all(np.abs(command) <= np.abs(goal) + 1e-12)
        arrivals += [period] if shaping.reached(command, goal) else []
    assert arrivals[0] == 23  # 1.07 rad at 0.048 rad per period: the knee's time, for all three


def test_a_near_goal_is_reached_in_one_step():
    shaping = make_filter()
    goal = np.array([0.001, 0.001, 0.001])
    np.testing.assert_allclose(shaping.step(np.zeros(3), goal, 0.5, 0.01), goal)
    assert shaping.reached(goal, goal)


def test_a_joint_without_velocity_limit_jumps_to_its_goal():
    assert make_filter().step(np.zeros(3), np.array([0.0, 0.0, 3.0]), 0.5, 0.01)[2] == 3.0


def test_a_goal_outside_the_limits_is_clipped_into_them():
    shaping = make_filter()
    command = np.zeros(3)
    for _ in range(1000):
        command = shaping.step(command, np.array([5.0, -5.0, 0.0]), 1.0, 0.01)
    np.testing.assert_allclose(command, [1.0, -2.0, 0.0])


def test_non_finite_goal_entries_hold_their_joint():
    command = make_filter().step(np.array([0.5, 0.5, 0.5]), np.array([np.nan, np.inf, 0.5]), 1.0, 0.01)
    np.testing.assert_allclose(command, [0.5, 0.5, 0.5])


def test_non_finite_current_positions_become_finite_commands():
    command = make_filter().step(np.array([np.nan, 0.0, 0.0]), np.zeros(3), 1.0, 0.01)
    assert np.all(np.isfinite(command))


def test_a_continuous_joint_steps_the_short_way_round_and_wraps():
    shaping = CommandFilter(np.array([-np.pi]), np.array([np.pi]), np.array([100.0]), np.array([True]))
    command = shaping.step(np.array([3.0]), np.array([-3.0]), 1.0, 0.01)
    assert abs(command[0] - (-3.0)) < 1e-12


def test_travel_time_is_set_by_the_slowest_joint():
    assert make_filter().travel_time(np.zeros(3), np.array([1.0, 1.0, 1.0]), 0.5) == 1.0


def test_random_steps_never_leave_the_limits_or_exceed_the_step_bound():
    rng = np.random.default_rng(3)
    shaping, command = make_filter(), np.zeros(3)
    for _ in range(500):
        goal = rng.uniform(-10, 10, 3)
        following = shaping.step(command, goal, 0.3, 0.02)
        assert np.all((following >= LOWER) & (following <= UPPER))
        assert np.all(np.abs(following - command)[:2] <= 0.3 * VELOCITY[:2] * 0.02 + 1e-12)
        command = following


def test_a_current_value_beyond_the_limits_is_brought_back_at_the_velocity_limit():
    shaping = CommandFilter(np.array([-1.0]), np.array([1.0]), np.array([2.0]))
    command = shaping.step(np.array([2.0]), np.array([0.0]), fraction=1.0, dt=0.01)
    np.testing.assert_allclose(command, [1.98])  # not clipped to 1.0 in one jump
