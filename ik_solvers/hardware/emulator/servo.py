"""One emulated servo: its control table memory and a first-order, velocity-limited motion.

The memory holds the registers of :mod:`ik_solvers.hardware.control_tables` with the makers'
factory defaults; the present registers are refreshed from the motion model whenever the bus
reads them. With torque on, the position approaches Goal Position as a first-order lag of time
constant ``TIME_CONSTANT`` whose speed never exceeds the profile velocity (or the model's no-load
speed when it is 0); with torque off it stays where it is. A Dynamixel bus watchdog that expires
stops the servo (goal := present) and locks Goal Position until the watchdog register is cleared.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ik_solvers.hardware.control_tables import DYNAMIXEL, WATCHDOG_EXPIRED, WATCHDOG_UNIT, ServoModel

TIME_CONSTANT = 0.02  # [s]
MEMORY_SIZE = 256
_FACTORY_RETURN_DELAY = {DYNAMIXEL: 250}  # [2 µs]; Feetech STS ship with 0


class EmulatedServo:
    """A servo of ``model`` with bus id ``servo_id`` at ``position`` [tick].

    ``position_source``, when given, replaces the motion model: it returns the present position
    [tick] from the goal [tick] (the MuJoCo simulation behind the demo's bus).
    """

    def __init__(
        self,
        model: ServoModel,
        servo_id: int,
        position: float,
        return_delay: int | None = None,
        position_source: Callable[[int, int], float] | None = None,
    ) -> None:
        self.model = model
        self.memory = bytearray(MEMORY_SIZE)
        self.position = float(position)
        self.velocity = 0.0  # [tick/s]
        self.position_source = position_source
        self.hardware_error = 0
        self.stalled = False  # a jammed joint: it answers and takes goals but does not move
        self.last_contact = None
        self.updated_at = None
        delay = _FACTORY_RETURN_DELAY.get(model.protocol, 0) if return_delay is None else return_delay
        for register, value in {
            "model_number": model.model_number,
            "id": servo_id,
            "return_delay_time": delay,
            "status_return_level": 2 if model.protocol == DYNAMIXEL else 1,
            "min_position_limit": model.position_range[0],
            "max_position_limit": model.position_range[1],
            "goal_position": round(position),
        }.items():
            self.set(register, value)

    @property
    def servo_id(self) -> int:
        """Bus id [0..252]."""
        return self.get("id")

    def get(self, register: str) -> int:
        """A register's unsigned value."""
        address, size = self.model.registers[register]
        return int.from_bytes(self.memory[address : address + size], "little")

    def set(self, register: str, value: int) -> None:
        """Store ``value`` (two's complement when negative) in a register."""
        address, size = self.model.registers[register]
        self.memory[address : address + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")

    def goal(self) -> int:
        """Goal Position [tick], signed."""
        value, size = self.get("goal_position"), self.model.size("goal_position")
        return value - (1 << (8 * size)) if value >> (8 * size - 1) else value

    def return_delay(self) -> float:
        """Return Delay Time [s]."""
        return 2e-6 * self.get("return_delay_time")

    def max_speed(self) -> float:
        """Speed limit of the motion [tick/s]: the profile velocity, or the no-load speed."""
        unit_ticks = self.model.velocity_unit * self.model.ticks_per_rev / (2.0 * math.pi)
        profile = self.get("profile_velocity")
        limit = self.model.max_velocity * self.model.ticks_per_rev / (2.0 * math.pi)
        return min(profile * unit_ticks, limit) if profile else limit

    def advance(self, now: float) -> None:
        """Move from the last update to ``now`` [s] (the present registers follow in :meth:`refresh`)."""
        dt = 0.0 if self.updated_at is None else max(0.0, now - self.updated_at)
        self.updated_at = now
        self._check_watchdog(now)
        if self.stalled:
            new = self.position
        elif self.position_source is not None:
            new = self.position_source(self.servo_id, self.goal())
        elif self.get("torque_enable"):
            step = (self.goal() - self.position) * (1.0 - math.exp(-dt / TIME_CONSTANT))
            bound = self.max_speed() * dt
            new = self.position + min(max(step, -bound), bound)
        else:
            new = self.position
        self.velocity = (new - self.position) / dt if dt > 0 else 0.0
        self.position = new

    def touched(self, now: float) -> None:
        """The servo received an instruction at ``now`` [s] (feeds the bus watchdog)."""
        self._check_watchdog(now)
        self.last_contact = now

    def goal_locked(self) -> bool:
        """True while an expired bus watchdog refuses new goals."""
        return self.model.has_bus_watchdog and self.get("bus_watchdog") == WATCHDOG_EXPIRED

    def _check_watchdog(self, now: float) -> None:
        if not self.model.has_bus_watchdog or self.last_contact is None:
            return
        period = self.get("bus_watchdog")
        if 0 < period < WATCHDOG_EXPIRED and now - self.last_contact > period * WATCHDOG_UNIT:
            self.set("bus_watchdog", WATCHDOG_EXPIRED)
            self.set("goal_position", round(self.position))

    def refresh(self) -> None:
        """Store the motion's state in the present registers (before the bus reads them)."""
        per_unit = self.model.velocity_unit * self.model.ticks_per_rev / (2.0 * math.pi)
        velocity = round(self.velocity / per_unit)
        if self.model.protocol == DYNAMIXEL:
            self.set("present_position", round(self.position))
            self.set("present_velocity", velocity)
        else:  # Feetech: sign and magnitude, sign bit 15
            self.set("present_position", max(0, round(self.position)))
            self.set("present_velocity", min(abs(velocity), 0x7FFF) | (0x8000 if velocity < 0 else 0))
        self.set("present_load", 0)
        self.set("moving", int(abs(self.goal() - self.position) > 1.0))
        self.set("hardware_error_status", self.hardware_error)
