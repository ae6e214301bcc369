"""Control tables of the supported servo models, as their makers publish them.

Dynamixel X-series, Protocol 2.0 (ROBOTIS e-Manual, "XM430-W350 control table"; the XL430, XM430,
XM540 and XH430 share the addresses used here): EEPROM below address 64, RAM from 64. Feetech STS
(STS3215 / STS3250 memory table, as in the makers' SMS_STS sources): EEPROM below 40, SRAM from 40.

Only the registers the bridge and the emulator use are listed, each as ``(address, size in bytes)``.
Multi-byte values are little-endian on both buses. This module imports without ROS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

DYNAMIXEL = "dynamixel"
FEETECH = "feetech"
PROTOCOLS = (DYNAMIXEL, FEETECH)

_DYNAMIXEL_X_REGISTERS = {
    "model_number": (0, 2),
    "firmware_version": (6, 1),
    "id": (7, 1),
    "baud_rate": (8, 1),
    "return_delay_time": (9, 1),  # [2 µs]
    "operating_mode": (11, 1),  # 3 = position control
    "max_position_limit": (48, 4),
    "min_position_limit": (52, 4),
    "torque_enable": (64, 1),
    "led": (65, 1),
    "status_return_level": (68, 1),
    "hardware_error_status": (70, 1),
    "bus_watchdog": (98, 1),  # [20 ms], 0 = off, -1 (0xFF) after it expired
    "profile_acceleration": (108, 4),
    "profile_velocity": (112, 4),  # [0.229 rev/min], 0 = unlimited
    "goal_position": (116, 4),
    "moving": (122, 1),
    "present_load": (126, 2),  # [0.1 %] (current [mA] on current-sensing models), signed
    "present_velocity": (128, 4),  # [0.229 rev/min], signed
    "present_position": (132, 4),  # [tick], signed
    "present_input_voltage": (144, 2),  # [0.1 V]
    "present_temperature": (146, 1),  # [°C]
}

_FEETECH_STS_REGISTERS = {
    "firmware_version": (0, 1),
    "model_number": (3, 2),
    "id": (5, 1),
    "baud_rate": (6, 1),
    "return_delay_time": (7, 1),  # [2 µs]
    "status_return_level": (8, 1),
    "min_position_limit": (9, 2),
    "max_position_limit": (11, 2),
    "operating_mode": (33, 1),  # 0 = position servo
    "torque_enable": (40, 1),
    "acceleration": (41, 1),  # [100 step/s²]
    "goal_position": (42, 2),  # [tick]
    "goal_time": (44, 2),  # [ms]
    "profile_velocity": (46, 2),  # Goal Speed [step/s], 0 = maximum
    "torque_limit": (48, 2),
    "lock": (55, 1),
    "present_position": (56, 2),  # [tick]
    "present_velocity": (58, 2),  # [step/s], bit 15 = sign
    "present_load": (60, 2),  # [0.1 %], bit 10 = sign
    "present_input_voltage": (62, 1),  # [0.1 V]
    "present_temperature": (63, 1),  # [°C]
    "hardware_error_status": (65, 1),
    "moving": (66, 1),
}

# Hardware error bits, as the servos report them (Dynamixel: Hardware Error Status register;
# Feetech: the error byte of every status packet).
DYNAMIXEL_HARDWARE_ERRORS = {
    0: "input voltage",
    2: "overheating",
    3: "motor encoder",
    4: "electrical shock",
    5: "overload",
}
FEETECH_HARDWARE_ERRORS = {
    0: "input voltage",
    1: "angle sensor",
    2: "overheating",
    3: "overcurrent",
    5: "overload",
}
DYNAMIXEL_ALERT_BIT = 0x80
WATCHDOG_UNIT = 0.02  # [s] per unit of Dynamixel's Bus Watchdog register
WATCHDOG_EXPIRED = 0xFF  # the Bus Watchdog register's -1: expired, Goal Position refused until cleared
WATCHDOG_MAX = 127  # [WATCHDOG_UNIT] the longest period the register takes (1..127)


@dataclass(frozen=True)
class ServoModel:
    """One servo model: what its bus calls it and the units of its registers.

    Attributes:
        name: the maker's model name, e.g. ``XM430-W350``.
        protocol: ``dynamixel`` (Protocol 2.0) or ``feetech`` (STS).
        model_number: value of the Model Number register.
        ticks_per_rev: position ticks per revolution.
        position_range: (min, max) goal position [tick] the servo accepts in position mode.
        velocity_unit: one unit of the velocity registers [rad/s].
        max_velocity: no-load speed [rad/s]; the emulator's speed when no limit is set.
        registers: name -> (address, size in bytes).
        has_bus_watchdog: the model stops by itself when the bus falls silent.
        has_fast_sync_read: the model answers Fast Sync Read (one status packet for all).
    """

    name: str
    protocol: str
    model_number: int
    ticks_per_rev: int
    position_range: tuple[int, int]
    velocity_unit: float
    max_velocity: float
    registers: dict[str, tuple[int, int]] = field(repr=False, hash=False, compare=False)
    has_bus_watchdog: bool = False
    has_fast_sync_read: bool = False

    def address(self, register: str) -> int:
        """Address of ``register`` in this model's control table."""
        return self.registers[register][0]

    def size(self, register: str) -> int:
        """Size [bytes] of ``register``."""
        return self.registers[register][1]


_RPM_0229 = 0.229 * 2.0 * math.pi / 60.0  # one Dynamixel velocity unit [rad/s]
_STEP_PER_S = 2.0 * math.pi / 4096.0  # one Feetech speed unit [rad/s]


def _model(protocol: str, name: str, model_number: int, max_velocity: float) -> ServoModel:
    """A 4096-tick, 0..4095 position servo of ``protocol`` (Dynamixel X-series or Feetech STS)."""
    dynamixel = protocol == DYNAMIXEL
    return ServoModel(
        name=name,
        protocol=protocol,
        model_number=model_number,
        ticks_per_rev=4096,
        position_range=(0, 4095),
        velocity_unit=_RPM_0229 if dynamixel else _STEP_PER_S,
        max_velocity=max_velocity,
        registers=_DYNAMIXEL_X_REGISTERS if dynamixel else _FEETECH_STS_REGISTERS,
        has_bus_watchdog=dynamixel,
        has_fast_sync_read=dynamixel,
    )


MODELS: dict[str, ServoModel] = {
    model.name: model
    for model in (
        _model(DYNAMIXEL, "XM430-W350", 1020, 4.8),
        _model(DYNAMIXEL, "XL430-W250", 1060, 6.2),
        _model(DYNAMIXEL, "XM540-W270", 1120, 5.2),
        _model(DYNAMIXEL, "XH430-W350", 1010, 4.8),
        _model(FEETECH, "STS3215", 777, 5.2),
        _model(FEETECH, "STS3250", 2825, 5.9),
    )
}


def servo_model(name: str) -> ServoModel:
    """The model called ``name``; an unknown name is refused with the known ones listed."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown servo model {name!r}; known models: {', '.join(sorted(MODELS))}") from None


def hardware_error_text(protocol: str, bits: int) -> str:
    """The hardware errors set in ``bits`` (a Hardware Error Status / Feetech error byte), in words."""
    names = DYNAMIXEL_HARDWARE_ERRORS if protocol == DYNAMIXEL else FEETECH_HARDWARE_ERRORS
    found = [text for bit, text in names.items() if bits & (1 << bit)]
    return ", ".join(found) if found else f"error bits 0x{bits:02x}"
