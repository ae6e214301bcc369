"""Dynamixel Protocol 2.0 bus through ROBOTIS' ``dynamixel_sdk`` (X-series control table).

Each cycle reads present load, velocity and position (addresses 126..135) of every servo with one
Fast Sync Read (0x8A: a single status packet for all servos) or, if configured, a Sync Read (0x82:
one status packet per servo). The SDK frames, stuffs and CRC-checks the packets.
"""

from __future__ import annotations

import dynamixel_sdk

from ik_solvers.hardware.bus import BusError, ServoState, to_signed
from ik_solvers.hardware.control_tables import DYNAMIXEL_ALERT_BIT, servo_model
from ik_solvers.hardware.sdk_bus import SDK_LATENCY_TIMER_MS, SdkBus

PROTOCOL_VERSION = 2.0
# Fast Sync Read answer, per servo: error (1), id (1), data (n), CRC (2)
_FAST_READ_OVERHEAD = 4


class DynamixelBus(SdkBus):
    """Dynamixel X-series servos on one port (see :class:`ik_solvers.hardware.bus.ServoBus`)."""

    hardware_error_mask = DYNAMIXEL_ALERT_BIT

    def __init__(
        self,
        port: str,
        baud_rate: int,
        latency_timer_ms: float = SDK_LATENCY_TIMER_MS,
        fast_sync_read: bool = True,
    ) -> None:
        super().__init__(
            dynamixel_sdk,
            dynamixel_sdk.PacketHandler(PROTOCOL_VERSION),
            servo_model("XM430-W350"),
            port,
            baud_rate,
            latency_timer_ms,
        )
        self.fast_sync_read = fast_sync_read

    def decode_state(self, data: bytes, error_bits: int) -> ServoState:
        """Present load (2 bytes), velocity (4) and position (4), all two's complement."""
        return ServoState(
            position=to_signed(self.state_field(data, "present_position"), 32),
            velocity=to_signed(self.state_field(data, "present_velocity"), 32),
            load=to_signed(self.state_field(data, "present_load"), 16),
            error_bits=error_bits,
        )

    def read_states(self, servo_ids: list[int]) -> dict[int, ServoState]:
        """Every servo's state with one (Fast) Sync Read; BusError when any answer is missing or bad."""
        if not self.fast_sync_read:
            return super().read_states(servo_ids)
        group = self.state_group(servo_ids)
        result = self._guard(group.fastSyncReadTxPacket)
        self._check(result, 0, None, "fast sync read")
        length = (self.state_length + _FAST_READ_OVERHEAD) * len(servo_ids)
        raw, result, _ = self._guard(
            lambda: self.packet.fastSyncReadRx(self.port, dynamixel_sdk.BROADCAST_ID, length)
        )
        self._check(result, 0, None, "fast sync read")
        return self._split_fast_answer(bytes(raw), servo_ids)

    def _split_fast_answer(self, raw: bytes, servo_ids: list[int]) -> dict[int, ServoState]:
        """Per-servo states from a Fast Sync Read answer: [error, id, data, crc] per servo."""
        states = {}
        step = self.state_length + _FAST_READ_OVERHEAD
        for start in range(0, len(raw) - step + 1, step):
            error, servo_id = raw[start], raw[start + 1]
            data = raw[start + 2 : start + 2 + self.state_length]
            self._check(self.sdk.COMM_SUCCESS, error, servo_id, "fast sync read")
            states[servo_id] = self.decode_state(data, error & DYNAMIXEL_ALERT_BIT)
        missing = sorted(set(servo_ids) - set(states))
        if missing:
            raise BusError("corrupt", f"fast sync read: no data for servos {missing}")
        return states
