"""The servos' bus watchdogs (Dynamixel): armed, re-armed after the bridge's silence, and after an expiry.

Each servo's bus watchdog counts from the last instruction *that servo* heard, so it is armed and
re-armed with Sync Writes, which every servo hears at once, and only after the servo-by-servo
writes of the start-up; it is re-armed whenever the bridge was silent for ``REARM_SHARE`` of its
period. An expired watchdog makes its servo refuse goals without a word (a Sync Write gets no
answer): when a servo stops following, its watchdog is read, and all are re-armed if it expired.

No ROS. Times in seconds.
"""

from __future__ import annotations

import time

from ik_solvers.hardware.bus import BusError, ServoBus
from ik_solvers.hardware.bus_health import BusHealth
from ik_solvers.hardware.control_tables import WATCHDOG_EXPIRED, WATCHDOG_UNIT

REARM_SHARE = 0.5  # share of the watchdog period of silence after which the bridge re-arms it


class BusWatchdog:
    """The bus watchdogs of the servos ``ids`` that have one (see the module docstring).

    Args:
        bus: the open bus.
        ids: the servos with a bus watchdog (none: every method does nothing).
        period: [s] the watchdog's period; 0: off (only cleared).
        health: where an expiry is reported and a failed read counted.
    """

    def __init__(self, bus: ServoBus, ids: list[int], period: float, health: BusHealth) -> None:
        self.bus, self.ids, self.period, self.health = bus, ids, period, health
        self.last_write: float | None = None  # [s] on clock: the last write every servo heard
        self.clock = time.monotonic

    def arm(self) -> None:
        """(Re)start every watchdog: clear it (an expired one refuses goals until then), then set
        the period; two Sync Writes, heard by all servos at once."""
        self.write(0)
        units = round(self.period / WATCHDOG_UNIT)
        if units:
            self.write(units)

    def write(self, units: int) -> None:
        """One Sync Write of the Bus Watchdog register [WATCHDOG_UNIT] to every servo that has one;
        it counts as the last write every servo heard (0: off, and clears an expiry)."""
        if self.ids:
            self.heard()
            self.bus.sync_write("bus_watchdog", dict.fromkeys(self.ids, units))

    def heard(self) -> None:
        """Every servo is being written to now (a Sync Write): the watchdogs count from here."""
        self.last_write = self.clock()

    def silent_too_long(self) -> bool:
        """Whether the last write every servo heard is REARM_SHARE of the watchdog period ago."""
        if self.last_write is None or not (self.ids and self.period > 0):
            return False
        return self.clock() - self.last_write > REARM_SHARE * self.period

    def rearm_if_expired(self, servo_id: int) -> None:
        """Read the servo's Bus Watchdog; when it expired (goals refused), re-arm all servos. A
        failed read is recorded against the servo (a lost port is raised)."""
        try:
            expired = self.bus.read_register(servo_id, "bus_watchdog") == WATCHDOG_EXPIRED
        except BusError as error:
            if error.kind == "port":
                raise
            self.health.record_error(error.kind, str(error), servo_id)
            return
        if expired:
            name = self.health.servos[servo_id].name
            self.health.event(
                "watchdog", "warning", f"bus watchdog of {name} had expired (goals refused): re-armed"
            )
            self.arm()
