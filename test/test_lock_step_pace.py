"""The lock-step gate's pacing source, on scripted stamps (no ROS): once the pacing controller
(walk_node) has been heard, a period waits for it even when another controller's command (the
demo's arms, through ik_node) is current; before that it does not."""

from __future__ import annotations

from ik_solvers.sim.lock_step import LockStepGate

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
