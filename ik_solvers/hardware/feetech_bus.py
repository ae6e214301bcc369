"""Feetech STS bus through the maker's SCServo SDK (``feetech-servo-sdk``, module ``scservo_sdk``).

Each cycle reads present position, speed and load (addresses 56..61) of every servo with one Sync
Read (0x82); each servo answers with its own status packet, whose error byte carries the hardware
alarm bits. STS registers are little-endian (``PacketHandler(0)``); speed and load are sign and
magnitude. The SDK frames and checksums the packets.
"""

from __future__ import annotations

import scservo_sdk

from ik_solvers.hardware.bus import ServoState, from_sign_magnitude
from ik_solvers.hardware.control_tables import servo_model
from ik_solvers.hardware.sdk_bus import SDK_LATENCY_TIMER_MS, SdkBus

LITTLE_ENDIAN = 0  # scservo_sdk's byte order switch: 0 for STS/SMS, 1 for SCS
_SPEED_SIGN_BIT = 15
_LOAD_SIGN_BIT = 10


class FeetechBus(SdkBus):
    """Feetech STS servos on one port (see :class:`ik_solvers.hardware.bus.ServoBus`)."""

    def __init__(self, port: str, baud_rate: int, latency_timer_ms: float = SDK_LATENCY_TIMER_MS) -> None:
        super().__init__(
            scservo_sdk,
            scservo_sdk.PacketHandler(LITTLE_ENDIAN),
            servo_model("STS3215"),
            port,
            baud_rate,
            latency_timer_ms,
        )

    def decode_state(self, data: bytes, error_bits: int) -> ServoState:
        """Present position (2 bytes), speed (2, sign bit 15) and load (2, sign bit 10)."""
        return ServoState(
            position=from_sign_magnitude(self.state_field(data, "present_position"), _SPEED_SIGN_BIT),
            velocity=from_sign_magnitude(self.state_field(data, "present_velocity"), _SPEED_SIGN_BIT),
            load=from_sign_magnitude(self.state_field(data, "present_load"), _LOAD_SIGN_BIT),
            error_bits=error_bits,
        )
