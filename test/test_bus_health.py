"""BusHealth's cycle figures (no bus, no ROS): the mean rate, and the rate 99 % of the cycles reach
(one over the 99th percentile of the time between two cycles), which shows the slow cycles the
mean hides."""

from __future__ import annotations

import pytest

from ik_solvers.hardware.bus_health import BusHealth


def health_after(periods: list[float]) -> BusHealth:
    """A BusHealth that saw cycles ``periods`` [s] apart."""
    health, now = BusHealth.for_servos({1: "l_knee"}), 0.0
    health.record_cycle(now, True)
    for period in periods:
        now += period
        health.record_cycle(now, True)
    return health


def test_steady_cycles_give_the_same_mean_and_p1_rate():
    summary = health_after([0.01] * 300).summary()
    assert summary["cycle_hz"] == pytest.approx(100.0) and summary["cycle_hz_p1"] == pytest.approx(100.0)


def test_a_few_slow_cycles_show_in_the_p1_rate_not_in_the_median():
    health = health_after([0.01] * 97 + [0.05] * 3)  # 3 % of the cycles 50 ms apart
    assert health.summary()["cycle_hz_p1"] == pytest.approx(20.0)
    assert health.period_percentile(0.5) == pytest.approx(0.01)


def test_no_rate_before_two_cycles():
    assert health_after([]).summary()["cycle_hz_p1"] == 0.0
