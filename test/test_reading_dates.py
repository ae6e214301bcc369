"""ReadingDates on scripted readings (no ROS): behind a lock-stepped simulator, a reading stamped
with a period but carrying the next period's state (the bridge's clock behind the emulated
servos' state) is left out; one carrying the previous period's state is kept and then replaced
under the same stamp; on a clock that moves between reads nothing is left out."""

from __future__ import annotations

from ik_solvers.hardware.reading_dates import ReadingDates

STEP = 0.01  # [rad] how far the joint moves in a period, many 4096-tick steps


def _state(period: int) -> list[float]:
    return [STEP * period, -STEP * period]


def test_a_reading_carrying_the_next_periods_state_under_a_stale_stamp_is_left_out():
    dates = ReadingDates()
    kept = [
        (stamp, data)
        for stamp, data in [(0, 0), (0, 0), (1, 1), (1, 1), (1, 2), (2, 2), (2, 2)]  # (1, 2): clock behind
        if dates.dated(stamp, _state(data))
    ]
    assert (1, 2) not in kept
    assert kept[-1] == (2, 2)


def test_a_reading_carrying_the_previous_periods_state_is_kept_and_then_replaced():
    dates = ReadingDates()
    readings = [(0, 0), (1, 0), (1, 1), (1, 1), (2, 1), (2, 2)]  # (1, 0), (2, 1): the clock came first
    assert all(dates.dated(stamp, _state(data)) for stamp, data in readings)


def test_a_clock_that_moves_between_reads_keeps_every_reading():
    dates = ReadingDates()
    assert all(dates.dated(k, _state(k % 3)) for k in range(30))


def test_a_robot_standing_still_keeps_every_reading():
    dates = ReadingDates()
    assert all(dates.dated(k // 4, _state(0)) for k in range(40))
