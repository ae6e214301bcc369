"""What the servo bridge is told and what it hands back, without ROS: its settings (checked when
made), what it took from a command, and what the servos answered in a cycle (URDF units).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ik_solvers.hardware.control_tables import WATCHDOG_MAX, WATCHDOG_UNIT
from ik_solvers.hardware.follow_monitor import FollowLimits


@dataclass(frozen=True)
class BridgeConfig:
    """Settings of the bridge. Times in seconds.

    Attributes:
        rate_hz: read/write cycles per second.
        command_timeout: a command is followed for this long after it arrived, counted in the
            bridge's goal steps (at most 0.1 s a cycle), then the goals hold.
        velocity_scale: share of each joint's URDF velocity limit the goals may move at.
        bus_watchdog: the servos stop by themselves after this silence (models with a bus
            watchdog; 0 = off).
        reopen_interval: time between attempts to reopen a lost port.
        retries: cycles in a row whose group read may fail before the servos are read one by one
            (start-up transactions: :mod:`ik_solvers.hardware.setup_retries`).
        torque_off_on_shutdown: disable torque when the bridge stops.
        follow: when a servo counts as not following its goal.
        stall_time: no servo answering (no joint_states) or no cycle for longer than this is
            reported as a stall.

    Raises:
        ValueError: a setting out of its range, named, with the range accepted.
    """

    rate_hz: float = 100.0
    command_timeout: float = 0.5
    velocity_scale: float = 1.0
    bus_watchdog: float = 0.25
    reopen_interval: float = 0.2
    retries: int = 1
    torque_off_on_shutdown: bool = True
    follow: FollowLimits = field(default_factory=FollowLimits)
    stall_time: float = 0.5

    def __post_init__(self) -> None:
        positive = {"rate": self.rate_hz, "command_timeout": self.command_timeout}
        positive |= {"velocity_scale": self.velocity_scale, "follow_time": self.follow.time}
        positive |= {"stall_time": self.stall_time}
        for name, value in positive.items():
            if not (math.isfinite(value) and value > 0.0):
                raise ValueError(f"{name} must be a positive finite number, not {value!r}")
        longest = WATCHDOG_MAX * WATCHDOG_UNIT
        if not 0.0 <= self.bus_watchdog <= longest:
            raise ValueError(f"bus_watchdog must be 0 (off) to {longest:g} s, not {self.bus_watchdog!r}")
        if not (math.isfinite(self.follow.tolerance) and self.follow.tolerance >= 0.0):
            raise ValueError(f"follow_tolerance must be >= 0 rad (0 = off), not {self.follow.tolerance!r}")


@dataclass(frozen=True)
class CommandUse:
    """What :meth:`ServoBridge.set_command` took from one command: how many targets, and the names
    it skipped (unknown joints, non-finite values) and values without a name."""

    used: int
    unknown: list[str]
    not_finite: list[str]
    unnamed: int = 0

    @property
    def skipped(self) -> bool:
        """Whether any part of the command was not used."""
        return bool(self.unknown or self.not_finite or self.unnamed)


@dataclass(frozen=True)
class JointReading:
    """Measured joint state of the servos that answered in one cycle (URDF units)."""

    names: list[str]
    positions: list[float]  # [rad]
    velocities: list[float]  # [rad/s]
    loads: list[float]  # fraction of the servo's maximum torque, signed
    read_at: object = None  # the bridge's ``read_clock`` just before the read was sent: the instant
    # the positions are from (after the cycle's write, so no period that write releases is in it)
