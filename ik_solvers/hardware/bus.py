"""The one small interface the servo bridge drives a bus through, whatever the protocol.

The base the backends build on: :class:`ServoBus`, :class:`BusError`, :class:`ServoState` and the
value encodings. It imports no backend; :func:`ik_solvers.hardware.bus_backends.make_bus` picks
one (Dynamixel Protocol 2.0 through ROBOTIS' ``dynamixel_sdk``, Feetech STS through
``scservo_sdk``). The packets, checksums and sync instructions are the SDKs'; the backends only
choose registers and turn the SDKs' result codes into :class:`BusError`. This module imports
without ROS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class BusError(Exception):
    """A failed transaction on the bus.

    Attributes:
        kind: ``timeout`` (no answer), ``corrupt`` (bad checksum/CRC or framing), ``status`` (the
            servo answered with an error), ``port`` (the serial port is gone or failed).
        servo_id: the servo concerned, or None for the whole bus.
    """

    def __init__(self, kind: str, message: str, servo_id: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.servo_id = servo_id


@dataclass(frozen=True)
class ServoState:
    """What one servo reported in a cycle, in the servo's own units.

    Attributes:
        position: present position [tick].
        velocity: present velocity [the model's velocity unit], signed.
        load: present load [0.1 % of the maximum], signed.
        error_bits: hardware error bits of the status packet (0 when healthy): Dynamixel's alert
            bit (0x80), or Feetech's error byte.
    """

    position: int
    velocity: int
    load: int
    error_bits: int = 0


class ServoBus(Protocol):
    """A serial bus of servos of one protocol. Every method raises :class:`BusError` on failure.

    ``answer_margin`` [s] is added to the time a transaction waits for its answer (0 normally): a
    caller that can afford to wait (the start-up, nothing moving yet) raises it for its retries.
    """

    answer_margin: float

    def open(self) -> None:
        """Open the serial port at the configured baud rate."""

    def close(self) -> None:
        """Close the port (nothing happens when it is closed already)."""

    def ping(self, servo_id: int) -> int:
        """The servo's model number."""

    def read_register(self, servo_id: int, register: str) -> int:
        """One register of one servo (unsigned, as stored)."""

    def write_register(self, servo_id: int, register: str, value: int) -> None:
        """Write one register of one servo and wait for its status packet."""

    def sync_write(self, register: str, values: dict[int, int]) -> None:
        """One Sync Write of ``register`` for several servos: servo id -> value (no answer)."""

    def read_states(self, servo_ids: list[int]) -> dict[int, ServoState]:
        """Present position, velocity and load of every servo, with one (Fast) Sync Read."""

    def read_state(self, servo_id: int) -> ServoState:
        """The same for one servo with a plain Read (used to find which servo failed)."""

    def clear_input(self) -> None:
        """Drop whatever late bytes wait in the receive buffer; forget a transaction cut short."""


def to_signed(value: int, bits: int) -> int:
    """Two's-complement ``value`` of ``bits`` bits as a Python int."""
    return value - (1 << bits) if value & (1 << (bits - 1)) else value


def from_sign_magnitude(value: int, sign_bit: int) -> int:
    """Feetech's sign-and-magnitude encoding (``sign_bit`` set = negative) as a Python int."""
    magnitude = value & ((1 << sign_bit) - 1)
    return -magnitude if value & (1 << sign_bit) else magnitude
