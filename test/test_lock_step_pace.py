"""The lock-step gate's pacing source, on scripted stamps (no ROS): once the pacing controller
(walk_node) has been heard, a period waits for it even when another controller's command (the
demo's arms, through ik_node) is current; before that it does not."""

from __future__ import annotations

from ik_solvers.sim.lock_step import BusGoals, LockStepGate

PERIOD = 0.01  # [s]
WALL = 5.0  # [s] far ahead of the simulated time: real time never holds the gate back here


def test_a_period_waits_for_the_pacing_controller_once_it_is_heard():
    gate = LockStepGate(timeout=3.0, max_lag=10.0, wall_origin=0.0)
    gate.command(0.0)  # the arms' command, before the walk node starts
    assert gate.may_advance(WALL, 0.0, PERIOD)
    gate.advanced(WALL)
    pace = gate.add_source(0.01)  # the walk node's first period
    gate.command(0.01)
    assert gate.may_advance(WALL, 0.01, PERIOD)
    gate.advanced(WALL)
    gate.command(0.02)  # the arms answered the next period; the walk node, paused, has not
    assert not gate.may_advance(WALL, 0.02, PERIOD)
    gate.command(0.02, source=pace)
    assert gate.may_advance(WALL, 0.02, PERIOD)
    gate.advanced(WALL)
    assert gate.may_advance(WALL + 3.0, 0.03, PERIOD)  # a walk node gone: the timeout still runs it
    assert gate.timeouts == 1


def test_behind_a_bus_a_period_runs_on_goals_carrying_the_legs_answer_to_it():
    """ik_node's command for an arm target of the period, solved before walk_node's target, still
    holds the legs' answer to the period before: goals carrying it count only until the legs'
    answer comes, and the period (waiting for that answer, ``lock_step_answer``) runs on goals
    that carry it."""
    gate = LockStepGate(timeout=100.0, max_lag=10.0, wall_origin=0.0, sources=2)
    bus = BusGoals(gate)
    answer = gate.add_source(0.0)  # ik_node's answer to walk_node (whole_body/torso_pose)
    names = ["l_knee", "l_shoulder_pitch"]
    bus.command(names, [0.50, 0.10], 0.01, wall=1.0)  # the arms' command of period 0.01, old legs
    assert bus.written(names, [0.50, 0.10], 0.01, wall=1.001)  # the bus carried it
    bus.command(names, [0.52, 0.10], 0.01, wall=1.002)  # the legs' answer to period 0.01
    gate.command(0.01, source=answer)
    assert not gate.may_advance(WALL, 0.01, PERIOD)  # the goals in hand hold the old legs
    assert not bus.written(names, [0.51, 0.10], 0.01, wall=1.005)  # a step the velocity limit cut
    assert not gate.may_advance(WALL, 0.01, PERIOD)
    assert bus.written(names, [0.52, 0.10], 0.01, wall=1.011)
    assert gate.may_advance(WALL, 0.01, PERIOD)
    assert bus.stale_periods == 0
