"""The bus's lock step and its delay measure, on scripted streams (no ROS): a lock-stepped period
behind a servo bus waits for the bus's goals and the controllers' command both; a goal is matched
to the command it carries, and its delay counted in periods and wall time."""

from __future__ import annotations

import numpy as np

from ik_solvers.demo.bus_latency import BusLatencyRecorder, Sample, bus_latency
from ik_solvers.sim.lock_step import LockStepGate, goals_carry

PERIOD = 0.01  # [s]


def test_a_period_behind_the_bus_waits_for_the_goals_and_the_controllers_command():
    gate = LockStepGate(timeout=1.0, max_lag=0.1, wall_origin=0.0, sources=2)
    wall = 0.05  # [s] ahead of the simulated time: real time never holds it back here
    assert not gate.may_advance(wall, 0.0, PERIOD)
    gate.command(0.0, source=0)  # the bus wrote after the state at 0
    assert not gate.may_advance(wall, 0.0, PERIOD)  # ik_node has not answered the period yet
    gate.command(0.0, source=1)
    assert gate.may_advance(wall, 0.0, PERIOD)
    gate.advanced(wall)
    gate.command(0.01, source=1)  # ik_node answered the next period, the bus has not written since
    assert not gate.may_advance(wall, 0.01, PERIOD)


def test_goals_carry_a_command_within_the_ticks_resolution_on_the_joints_both_name():
    command = {"knee": 1.0, "ankle": -0.5}
    assert goals_carry(
        ["knee", "ankle", "wrist"], [1.0007, -0.5, 3.0], command
    )  # a tick off, wrist not commanded
    assert not goals_carry(["knee", "ankle"], [1.0, -0.49], command)  # the command before: 10 mrad off


def test_goals_are_matched_to_the_commands_they_carry_one_period_late():
    recorder = BusLatencyRecorder(["knee"])
    for k in range(10):  # the knee moves 10 mrad a period; each goal carries the previous period's command
        recorder.commands.append(Sample(k * PERIOD, 1.0 + k * PERIOD, np.array([0.01 * k])))
        if k:
            recorder.goals.append(Sample(k * PERIOD, 1.0 + k * PERIOD + 0.004, np.array([0.01 * (k - 1)])))
    recorder.goals.append(Sample(0.1, 1.105, np.array([0.5])))  # the bridge cut this one: no command
    summary = bus_latency(recorder, PERIOD)
    assert summary["matched"] == 8  # the goal carrying the first command tells nothing (nothing moved before)
    assert summary["unmatched"] == 1
    assert summary["periods_p50"] == 1.0 and summary["periods_max"] == 1
    assert abs(summary["wall_ms_p50"] - 14.0) < 1e-6  # seen 10 ms + 4 ms after its command


def test_goals_of_joints_that_hold_still_are_left_out():
    recorder = BusLatencyRecorder(["knee"])
    for k in range(5):
        recorder.commands.append(Sample(k * PERIOD, k * PERIOD, np.zeros(1)))
        recorder.goals.append(Sample(k * PERIOD, k * PERIOD + 0.001, np.zeros(1)))
    assert bus_latency(recorder, PERIOD) == {"matched": 0, "unmatched": 0}
