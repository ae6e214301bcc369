"""When a lock-stepped simulation may advance: commands for the current period in, real time not passed.

No ROS here. The simulator advances by one control period only when a joint command stamped at or
after the current simulated time has arrived (the controllers have answered this period), or when
``timeout`` [s] of wall time have passed without one (nobody commands: the robot holds its last
targets and nothing deadlocks), and never ahead of the wall clock (real-time factor at most 1).
When the simulation falls more than ``max_lag`` [s] behind the wall clock (controllers stalled),
the wall clock's origin slips instead of the simulation running in a burst; the real-time factor,
simulated over wall time, then shows the stall honestly.
"""

from __future__ import annotations

from dataclasses import dataclass

STAMP_TOLERANCE = 1e-6  # [s] a command stamped this close before the period's start counts as current


@dataclass
class LockStepGate:
    """Decides, from wall time [s] and the simulated time [s], whether the next period may run.

    Args:
        timeout: [s] of wall time to wait for a current command before advancing without one.
        max_lag: [s] simulated time may trail the wall clock before the origin slips.
        wall_origin: [s] wall time (monotonic) at simulated time 0.
    """

    timeout: float
    max_lag: float
    wall_origin: float
    latest_stamp: float = -float("inf")  # [s] newest joint command stamp seen (simulated time)
    period_start_wall: float = 0.0  # [s] wall time when the current period began
    timeouts: int = 0  # periods run without a current command (after the timeout)

    def __post_init__(self) -> None:
        self.period_start_wall = self.wall_origin

    def command(self, stamp: float) -> None:
        """Record a joint command stamped ``stamp`` [s] (simulated time)."""
        self.latest_stamp = max(self.latest_stamp, stamp)

    def may_advance(self, wall: float, sim_time: float, period: float) -> bool:
        """True when the period starting at ``sim_time`` [s] may run at wall time ``wall`` [s]."""
        lag = wall - self.wall_origin - sim_time
        if lag > self.max_lag:
            self.wall_origin += lag - self.max_lag
        if wall - self.wall_origin < sim_time + period:  # would run ahead of real time
            return False
        if self.latest_stamp >= sim_time - STAMP_TOLERANCE:
            return True
        if wall - self.period_start_wall >= self.timeout:
            self.timeouts += 1
            return True
        return False

    def advanced(self, wall: float) -> None:
        """The period ran; the next one starts waiting at ``wall`` [s]."""
        self.period_start_wall = wall
