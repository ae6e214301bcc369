"""What the Dynamixel and Feetech backends share: both vendors' SDKs have the same shape.

``dynamixel_sdk`` and ``scservo_sdk`` each provide a ``PortHandler`` (pyserial), a packet handler
(``ping``, ``readNByteTxRx``, ``writeNByteTxRx``, ``readRx``), ``GroupSyncWrite`` and
``GroupSyncRead``, and the same ``COMM_*`` result codes. :class:`SdkBus` drives either through
them; the subclasses add the protocol's own state read. This module imports without ROS.
"""

from __future__ import annotations

import contextlib
import functools
import termios
import time
from types import ModuleType

import serial

from ik_solvers.hardware.bus import BusError, ServoState
from ik_solvers.hardware.control_tables import ServoModel

_STATE_REGISTERS = ("present_load", "present_velocity", "present_position")
SDK_LATENCY_TIMER_MS = 16.0  # what both SDKs assume for a USB serial adapter
# What a serial port that vanished raises, depending on the call that meets it first
PORT_ERRORS = (OSError, termios.error, serial.SerialException)
READ_BLOCK_S = 0.002  # longest a single serial read of the SDK's receive loop blocks [s]
QUIET_TIME = 0.003  # [s] without a byte after which late answers count as over (clear_input)
CLEAR_TIME = 0.1  # [s] longest clear_input waits for the line to go quiet


def _port_handler(sdk: ModuleType, port: str, bus: SdkBus):
    """The SDK's PortHandler whose packet timeouts use ``bus.latency_timer_ms`` instead of 16 ms,
    plus ``bus.answer_margin`` [s] (read at each packet, so that a caller can wait longer for a while)."""

    class PortHandler(sdk.PortHandler):
        def setPacketTimeout(self, packet_length):  # the SDK's method name [ms]
            self.packet_start_time = self.getCurrentTime()
            wait = 2.0 * bus.latency_timer_ms + 2.0 + 1e3 * bus.answer_margin
            self.packet_timeout = self.tx_time_per_byte * packet_length + wait

    return PortHandler(port)


class SdkBus:
    """A :class:`~ik_solvers.hardware.bus.ServoBus` over a vendor SDK (see the module docstring).

    Args:
        sdk: the SDK module (``dynamixel_sdk`` or ``scservo_sdk``).
        packet_handler: the SDK's packet handler for the protocol.
        model: the control table the registers are looked up in (all servos on a bus share it).
        port: serial port path; baud_rate [bit/s]; latency_timer_ms [ms].
    """

    def __init__(
        self,
        sdk: ModuleType,
        packet_handler,
        model: ServoModel,
        port: str,
        baud_rate: int,
        latency_timer_ms: float = SDK_LATENCY_TIMER_MS,
    ) -> None:
        self.sdk = sdk
        self.packet = packet_handler
        self.model = model
        self.port_name = port
        self.baud_rate = baud_rate
        self.latency_timer_ms = latency_timer_ms
        self.answer_margin = 0.0  # [s] added to every packet timeout (see ServoBus.answer_margin)
        self.port = None

    # -- port ---------------------------------------------------------------------------------
    def open(self) -> None:
        """Open the port (a fresh PortHandler, so that a lost port is reopened cleanly)."""
        self.close()
        port = _port_handler(self.sdk, self.port_name, self)
        port.baudrate = self.baud_rate
        try:
            opened = port.openPort()
        except PORT_ERRORS as error:
            raise BusError("port", f"cannot open {self.port_name}: {error}") from None
        if not opened:
            raise BusError(
                "port", f"cannot open {self.port_name} at {self.baud_rate} bit/s (unsupported rate?)"
            )
        # The SDKs poll with a non-blocking read (timeout 0) and spin until their packet timeout;
        # a short blocking read waits for the bytes they ask for instead of burning a core.
        port.ser.timeout = READ_BLOCK_S
        self.port = port

    def close(self) -> None:
        """Close the port; errors of a port that is already gone are ignored."""
        if self.port is not None:
            with contextlib.suppress(*PORT_ERRORS):
                self.port.closePort()
        self.port = None

    def clear_input(self) -> None:
        """Drop late bytes from the receive buffer, also those still arriving (until the line has
        been quiet for QUIET_TIME, at most CLEAR_TIME), and forget a transaction cut short (an
        exception inside the SDK leaves its port marked busy).

        A servo that answered late (on a loaded machine, an emulated servo not scheduled) may still
        be sending the answers to every attempt that gave up on it: taken for the answer to the next
        request, they would fail that one too.
        """
        self._guard(self._drain)
        self.port.is_using = False

    def _drain(self) -> None:
        serial_port = self.port.ser
        serial_port.reset_input_buffer()
        serial_port.timeout, end = QUIET_TIME, time.monotonic() + CLEAR_TIME
        try:
            while serial_port.read(4096) and time.monotonic() < end:
                pass
        finally:
            serial_port.timeout = READ_BLOCK_S

    # -- single transactions ------------------------------------------------------------------
    def ping(self, servo_id: int) -> int:
        """The servo's model number."""
        model_number, result, error = self._guard(lambda: self.packet.ping(self.port, servo_id))
        self._check(result, error, servo_id, "ping")
        return model_number

    def read_register(self, servo_id: int, register: str) -> int:
        """One register of one servo, unsigned."""
        size = self.model.size(register)
        read = getattr(self.packet, f"read{size}ByteTxRx")
        value, result, error = self._guard(lambda: read(self.port, servo_id, self.model.address(register)))
        self._check(result, error, servo_id, f"read {register}")
        return value

    def write_register(self, servo_id: int, register: str, value: int) -> None:
        """Write one register and wait for the servo's status packet."""
        size = self.model.size(register)
        write = getattr(self.packet, f"write{size}ByteTxRx")
        address = self.model.address(register)
        value &= (1 << (8 * size)) - 1
        result, error = self._guard(lambda: write(self.port, servo_id, address, value))
        self._check(result, error, servo_id, f"write {register}")

    # -- group transactions -------------------------------------------------------------------
    def sync_write(self, register: str, values: dict[int, int]) -> None:
        """One Sync Write of ``register``: servo id -> value (two's complement, little-endian)."""
        size = self.model.size(register)
        group = self.sdk.GroupSyncWrite(self.port, self.packet, self.model.address(register), size)
        for servo_id, value in values.items():
            group.addParam(servo_id, list((value & ((1 << (8 * size)) - 1)).to_bytes(size, "little")))
        result = self._guard(group.txPacket)
        self._check(result, 0, None, f"sync write {register}")

    def state_group(self, servo_ids: list[int]):
        """A GroupSyncRead of the state block (present load .. present position) for ``servo_ids``."""
        group = self.sdk.GroupSyncRead(self.port, self.packet, self.state_address, self.state_length)
        for servo_id in servo_ids:
            group.addParam(servo_id)
        return group

    def read_states(self, servo_ids: list[int]) -> dict[int, ServoState]:
        """Every servo's state with one Sync Read (one status packet per servo, read with readRx).

        Raises BusError at the first servo whose answer is missing or bad, naming it.
        """
        group = self.state_group(servo_ids)
        result = self._guard(group.txPacket)
        self._check(result, 0, None, "sync read")
        states = {}
        for servo_id in servo_ids:
            data, result, error = self._guard(
                lambda i=servo_id: self.packet.readRx(self.port, i, self.state_length)
            )
            self._check(result, error, servo_id, "sync read")
            states[servo_id] = self.decode_state(bytes(data), error & self.hardware_error_mask)
        return states

    def read_state(self, servo_id: int) -> ServoState:
        """One servo's state block with a plain Read."""
        data, result, error = self._guard(
            lambda: self.packet.readTxRx(self.port, servo_id, self.state_address, self.state_length)
        )
        self._check(result, error, servo_id, "read state")
        return self.decode_state(bytes(data), error & self.hardware_error_mask)

    @functools.cached_property
    def state_address(self) -> int:
        """First address of the state block (present load, velocity and position, in either order)."""
        return min(self.model.address(r) for r in _STATE_REGISTERS)

    @functools.cached_property
    def state_length(self) -> int:
        """Bytes of the state block."""
        return max(self.model.address(r) + self.model.size(r) for r in _STATE_REGISTERS) - self.state_address

    @functools.cached_property
    def _state_fields(self) -> dict[str, slice]:
        """Register -> where its bytes lie inside a state block (worked out once: every cycle decodes
        every servo's block)."""
        fields = {}
        for register in _STATE_REGISTERS:
            start = self.model.address(register) - self.state_address
            fields[register] = slice(start, start + self.model.size(register))
        return fields

    def state_field(self, data: bytes, register: str) -> int:
        """The unsigned value of ``register`` inside a state block's bytes."""
        return int.from_bytes(data[self._state_fields[register]], "little")

    # -- protocol specifics (subclasses) --------------------------------------------------------
    hardware_error_mask = 0xFF  # bits of a status packet's error byte that are hardware alarms

    def decode_state(self, data: bytes, error_bits: int) -> ServoState:
        """A ServoState from the state block's bytes."""
        raise NotImplementedError

    # -- result handling ----------------------------------------------------------------------
    def _guard(self, call):
        """Run an SDK call, turning a vanished port's exceptions into BusError('port'), and the
        IndexError an SDK raises on a short answer it took for the one it waited for (a late
        answer to an earlier request, seen from scservo_sdk's ping) into BusError('corrupt')."""
        if self.port is None:
            raise BusError("port", f"{self.port_name} is not open")
        try:
            return call()
        except PORT_ERRORS as error:
            self.close()
            raise BusError("port", f"{self.port_name}: {error}") from None
        except IndexError as error:
            self.port.is_using = False
            raise BusError("corrupt", f"{self.port_name}: unexpected answer ({error})") from None

    def _check(self, result: int, error: int, servo_id: int | None, what: str) -> None:
        """Raise BusError for an SDK result other than success, or a status packet's (non-hardware) error.

        Hardware alarm bits are not failures of the transaction: the states carry them.
        """
        who = f"servo {servo_id}" if servo_id is not None else "bus"
        if result != self.sdk.COMM_SUCCESS:
            kind = {self.sdk.COMM_RX_TIMEOUT: "timeout", self.sdk.COMM_RX_CORRUPT: "corrupt"}.get(
                result, "bus"
            )
            text = self.packet.getTxRxResult(result)
            raise BusError(kind, f"{who}: {what}: {text}", servo_id)
        if error & ~self.hardware_error_mask:
            raise BusError("status", f"{who}: {what}: {self.packet.getRxPacketError(error)}", servo_id)
