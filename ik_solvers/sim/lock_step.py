"""When a lock-stepped simulation may advance: commands for the current period in, real time not passed.

No ROS here. The simulator advances by one control period only when a joint command stamped at or
after the current simulated time has arrived (the controllers have answered this period), or when
``timeout`` [s] of wall time have passed without one (nobody commands: the robot holds its last
targets and nothing deadlocks), and never ahead of the wall clock (real-time factor at most 1).
When the simulation falls more than ``max_lag`` [s] behind the wall clock (controllers stalled),
the wall clock's origin slips instead of the simulation running in a burst; the real-time factor,
simulated over wall time, then shows the stall honestly.

With ``sources`` > 1 every source must have sent a current stamp: behind a servo bus, the goals the
bus wrote (source 0, the ones applied) and the controllers' own commands (source 1, watched), so
that the world waits for the controllers and advances only with a bus write. A pacing source
(:meth:`LockStepGate.add_source`: sim_node's ``lock_step_pace``, the walk node's period) joins
when its first stamp comes, and from then on every period waits for it too: several controllers
command the same joints (the demo's arms and walk_node, both through ik_node), and any one of
them answering a period let it run while the walk node, paused by a busy machine, had not
(its legs' targets then stood still for up to 16 periods and its stabiliser saw its inputs up to
90 ms old: the stabilised demo fell in its arms part). Goals count for a
period once they carry the controllers' command of that period (:func:`goals_carry`), or once
``BUS_WAIT`` has passed since that command came: the period then runs on the stale goals the
bus has. Goals count only while they carry the newest command (:meth:`LockStepGate.withdraw`):
ik_node publishes a command for every arm target and velocity-limited step too, stamped with
the period, holding the legs' answer to the one before until it has solved walk_node's target; a
write of such a command let the period run on the legs' old answer (a delay of 0 or 1 period
by a race, the jitter the open-loop gait feels; docs/hardware.md).
With the answer to walk_node as a pacing source (sim_node's ``lock_step_answer``, ik_node's
``whole_body/torso_pose``, published after the legs' command), a period runs on goals that
carry the legs' answer to it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

STAMP_TOLERANCE = 1e-6  # [s] a command stamped this close before the period's start counts as current
GOAL_TOLERANCE = 2e-3  # [rad] a goal carries a command: 4096-tick servos quantise to 1.5 mrad
WALK_TIMEOUT = 3.0  # [s] a walking robot's period waits this long for its command (ik_demo and
# walk.launch.py set it as sim_node's lock_step_timeout): under load on a shared 2-core machine they come later than the default 0.2 s, and a period run without its
# command is a frozen servo target, then a jump (at 1 s and load 11, four such periods in the
# turn's stop and the sidestep made the packaged robot's soles slip 14.8 mm instead of 2; at 5 s
# none did). It costs nothing while commands flow, but every period ik_node does not answer: the
# OP3's first 14 posture targets are out of its reach (14 waits at start-up)
BUS_WAIT = 0.5  # [s] of wall time a period waits for goals that carry its command (a goal the bridge's
# velocity limit or a calibrated range cut never does)


def goals_carry(names: list[str], goals: list[float], command: dict[str, float]) -> bool:
    """Whether the bus's ``goals`` [rad] of joints ``names`` equal ``command`` (joint → [rad])
    within GOAL_TOLERANCE on every joint both name."""
    return all(
        abs(goal - command[name]) <= GOAL_TOLERANCE for name, goal in zip(names, goals) if name in command
    )


@dataclass
class LockStepGate:
    """Decides, from wall time [s] and the simulated time [s], whether the next period may run.

    Args:
        timeout: [s] of wall time to wait for a current command before advancing without one.
        max_lag: [s] simulated time may trail the wall clock before the origin slips.
        wall_origin: [s] wall time (monotonic) at simulated time 0.
        sources: how many command streams must each be current (see the module docstring).
    """

    timeout: float
    max_lag: float
    wall_origin: float
    sources: int = 1
    latest_stamps: list[float] = field(default_factory=list)  # [s] newest stamp per source (simulated)
    period_start_wall: float = 0.0  # [s] wall time when the current period began
    timeouts: int = 0  # periods run without a current command (after the timeout)

    def __post_init__(self) -> None:
        self.period_start_wall = self.wall_origin
        self.latest_stamps = [-float("inf")] * self.sources

    def command(self, stamp: float, source: int = 0) -> None:
        """Record a command of ``source`` stamped ``stamp`` [s] (simulated time)."""
        self.latest_stamps[source] = max(self.latest_stamps[source], stamp)

    def withdraw(self, source: int) -> None:
        """What ``source`` sent no longer counts (behind a bus: newer commands came than the goals
        in hand carry); the next period waits for it again."""
        self.latest_stamps[source] = -float("inf")

    def add_source(self, stamp: float) -> int:
        """A source that joins now with its first stamp [s] (simulated time); its index."""
        self.latest_stamps.append(stamp)
        return len(self.latest_stamps) - 1

    def may_advance(self, wall: float, sim_time: float, period: float) -> bool:
        """True when the period starting at ``sim_time`` [s] may run at wall time ``wall`` [s]."""
        lag = wall - self.wall_origin - sim_time
        if lag > self.max_lag:
            self.wall_origin += lag - self.max_lag
        if wall - self.wall_origin < sim_time + period:  # would run ahead of real time
            return False
        if min(self.latest_stamps) >= sim_time - STAMP_TOLERANCE:
            return True
        if wall - self.period_start_wall >= self.timeout:
            self.timeouts += 1
            return True
        return False

    def advanced(self, wall: float) -> None:
        """The period ran; the next one starts waiting at ``wall`` [s]."""
        self.period_start_wall = wall


@dataclass
class BusGoals:
    """Behind a servo bus: the controllers' newest command (watched, source 1 of ``gate``) and the
    goals the bus last wrote (applied), which count for the period as source 0 only while they
    carry that command (or after BUS_WAIT: stale goals, counted).

    Args:
        gate: the lock-step gate, made with ``sources`` 2.
    """

    gate: LockStepGate
    watched: dict[str, float] = field(default_factory=dict)  # joint -> [rad], the newest command
    watched_wall: float = 0.0  # [s] wall time (monotonic) it came
    goals: tuple[list[str], list[float]] = ((), ())  # the bus's last goals: names, [rad]
    stale_periods: int = 0  # periods released by goals without the controllers' command

    def command(self, names: list[str], positions: list[float], stamp: float, wall: float) -> None:
        """A controllers' command stamped ``stamp`` [s] (simulated) came at ``wall`` [s]; goals in
        hand that do not carry it no longer count."""
        self.watched, self.watched_wall = dict(zip(names, positions)), wall
        if not goals_carry(*self.goals, self.watched):
            self.gate.withdraw(0)
        self.gate.command(stamp, source=1)

    def written(self, names: list[str], positions: list[float], sim_time: float, wall: float) -> bool:
        """The bus wrote ``positions`` [rad] at ``wall`` [s], the simulation standing at
        ``sim_time`` [s]; True when they count for the period (the gate may then advance)."""
        self.goals = (list(names), list(positions))
        if self.gate.latest_stamps[1] < sim_time - STAMP_TOLERANCE:
            return False  # the controllers have not answered the period: only goals written after count
        if not goals_carry(*self.goals, self.watched):
            if wall - self.watched_wall < BUS_WAIT:
                return False
            self.stale_periods += 1
        self.gate.command(sim_time)  # written after the period's command: after its state too
        return True
