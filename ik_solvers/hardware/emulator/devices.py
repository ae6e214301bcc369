"""The servos of one emulated bus answering instruction packets, per protocol.

Dynamixel Protocol 2.0 instructions handled: Ping (0x01), Read (0x02), Write (0x03), Sync Read
(0x82), Fast Sync Read (0x8A), Sync Write (0x83). Feetech STS: Ping, Read, Write, Sync Read, Sync
Write. Broadcast packets (id 0xFE) get no answer except the sync reads. Per-servo faults live here:
a missing servo never answers; a hardware error shows in its status packets' error byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from ik_solvers.hardware.control_tables import DYNAMIXEL_ALERT_BIT
from ik_solvers.hardware.emulator.framing import (
    DXL_STATUS,
    DynamixelParser,
    FeetechParser,
    Packet,
    crc16,
    dxl_status,
    sts_status,
)
from ik_solvers.hardware.emulator.servo import EmulatedServo

BROADCAST = 0xFE
PING, READ, WRITE, SYNC_READ, SYNC_WRITE, FAST_SYNC_READ = 0x01, 0x02, 0x03, 0x82, 0x83, 0x8A
# Protocol 2.0 error numbers of a status packet
DXL_INSTRUCTION_ERROR, DXL_DATA_RANGE_ERROR, DXL_ACCESS_ERROR = 2, 4, 7
DXL_EEPROM_END = 64  # EEPROM area (locked while torque is on) ends here


@dataclass(frozen=True)
class Reply:
    """A status packet and the return delay [s] the servo waits before sending it."""

    data: bytes
    delay: float


class EmulatedBus:
    """Servos sharing one bus; subclasses speak a protocol."""

    address_bytes = 2  # bytes of an address / length field in the instruction parameters

    def __init__(self, servos: list[EmulatedServo]) -> None:
        self.servos = {servo.servo_id: servo for servo in servos}
        self.missing: set[int] = set()
        self.parser = self.make_parser()

    def make_parser(self):
        """The streaming instruction parser of the protocol."""
        raise NotImplementedError

    def status(self, servo: EmulatedServo, error: int = 0, params: bytes = b"") -> bytes:
        """A status packet of ``servo`` with the protocol's error byte (hardware bits added)."""
        raise NotImplementedError

    def answering(self, servo_id: int) -> EmulatedServo | None:
        """The servo with ``servo_id`` if it is on the bus and not made missing."""
        return None if servo_id in self.missing else self.servos.get(servo_id)

    def receive(self, data: bytes, now: float) -> list[tuple[Packet, list[Reply]]]:
        """Bytes from the bus at ``now`` [s] -> each complete instruction with the replies it gets.

        The servos move to ``now`` once, before the instructions act; their present registers are
        refreshed when an instruction reads.
        """
        packets = self.parser.feed(data)
        if packets:
            reads = any(p.instruction in (READ, SYNC_READ, FAST_SYNC_READ) for p in packets)
            for servo in self.servos.values():
                servo.advance(now)
                if reads:
                    servo.refresh()
        return [(packet, self.handle(packet, now)) for packet in packets]

    def handle(self, packet: Packet, now: float) -> list[Reply]:
        """Execute one instruction packet; the status packets to send, in order."""
        addressed = (
            self.servos.values() if packet.servo_id == BROADCAST else [self.servos.get(packet.servo_id)]
        )
        for servo in addressed:
            if servo is not None:
                servo.touched(now)
        if packet.instruction in (SYNC_WRITE, SYNC_READ, FAST_SYNC_READ):
            return self.handle_sync(packet, now)
        servo = self.answering(packet.servo_id)
        if servo is None:
            return []
        replies = {PING: self.ping, READ: self.read, WRITE: self.write}
        if packet.instruction not in replies:
            return [Reply(self.status(servo, DXL_INSTRUCTION_ERROR), servo.return_delay())]
        return [Reply(replies[packet.instruction](servo, packet.params), servo.return_delay())]

    # -- instructions -------------------------------------------------------------------------
    def split(self, params: bytes, count: int) -> tuple[int, ...]:
        """The first ``count`` address/length fields of the parameters."""
        n = self.address_bytes
        return tuple(int.from_bytes(params[i * n : (i + 1) * n], "little") for i in range(count))

    def ping(self, servo: EmulatedServo, params: bytes) -> bytes:
        """Ping: an empty status packet (Dynamixel adds model number and firmware version)."""
        return self.status(servo)

    def read(self, servo: EmulatedServo, params: bytes) -> bytes:
        """Read: the bytes from the address asked."""
        address, length = self.split(params, 2)
        return self.status(servo, params=bytes(servo.memory[address : address + length]))

    def write(self, servo: EmulatedServo, params: bytes) -> bytes:
        """Write: store the bytes; the status packet says whether the servo accepted them."""
        (address,) = self.split(params, 1)
        return self.status(servo, self.store(servo, address, params[self.address_bytes :]))

    def store(self, servo: EmulatedServo, address: int, data: bytes) -> int:
        """Write ``data`` at ``address``; the protocol's error number (0 = accepted)."""
        servo.memory[address : address + len(data)] = data
        return 0

    def handle_sync(self, packet: Packet, now: float) -> list[Reply]:
        """Sync Write (no answer) and Sync Read (one status packet per servo, in the order asked)."""
        address, length = self.split(packet.params, 2)
        entries = packet.params[2 * self.address_bytes :]
        if packet.instruction == SYNC_WRITE:
            for start in range(0, len(entries) - length, length + 1):
                servo = self.answering(entries[start])
                if servo is not None:
                    self.store(servo, address, entries[start + 1 : start + 1 + length])
            return []
        servos = [self.answering(servo_id) for servo_id in entries]
        if packet.instruction == FAST_SYNC_READ:
            return self.fast_sync_read(servos, address, length)
        return [
            Reply(self.status(s, params=bytes(s.memory[address : address + length])), s.return_delay())
            for s in servos
            if s is not None
        ]

    def fast_sync_read(self, servos: list, address: int, length: int) -> list[Reply]:
        """Not in this protocol."""
        return []


class DynamixelBus(EmulatedBus):
    """Dynamixel X-series servos speaking Protocol 2.0."""

    def make_parser(self) -> DynamixelParser:
        """Protocol 2.0 parser."""
        return DynamixelParser()

    def status(self, servo: EmulatedServo, error: int = 0, params: bytes = b"") -> bytes:
        """Status packet; the alert bit (0x80) flags a hardware error."""
        return dxl_status(
            servo.servo_id, error | (DYNAMIXEL_ALERT_BIT if servo.hardware_error else 0), params
        )

    def ping(self, servo: EmulatedServo, params: bytes) -> bytes:
        """Model number (2 bytes) and firmware version (1 byte)."""
        info = servo.memory[0:2] + servo.memory[6:7]
        return self.status(servo, params=bytes(info))

    def store(self, servo: EmulatedServo, address: int, data: bytes) -> int:
        """EEPROM is locked while torque is on; Goal Position is locked after a watchdog expiry."""
        if address < DXL_EEPROM_END and servo.get("torque_enable"):
            return DXL_ACCESS_ERROR
        goal = servo.model.address("goal_position")
        if servo.goal_locked() and address <= goal < address + len(data):
            return DXL_DATA_RANGE_ERROR
        return super().store(servo, address, data)

    def fast_sync_read(self, servos: list, address: int, length: int) -> list[Reply]:
        """One status packet from id 0xFE: per servo ERROR, ID, DATA, CRC; each CRC is the running
        CRC of the packet up to it, so the last is the packet's. A missing servo cuts the packet
        short there (the servos after it wait for it). The packet is not stuffed.
        """
        present = []
        for servo in servos:
            if servo is None:
                break
            present.append(servo)
        if not present:
            return []
        announced = 1 + (length + 4) * len(servos)  # a cut-short packet announces every servo
        packet = bytearray([0xFF, 0xFF, 0xFD, 0x00, BROADCAST]) + announced.to_bytes(2, "little")
        packet.append(DXL_STATUS)
        crc = crc16(packet)
        for servo in present:
            error = DYNAMIXEL_ALERT_BIT if servo.hardware_error else 0
            segment = bytes([error, servo.servo_id]) + servo.memory[address : address + length]
            crc = crc16(segment, crc)
            packet += segment + crc.to_bytes(2, "little")
            crc = crc16(packet[-2:], crc)
        return [Reply(bytes(packet), present[0].return_delay())]


class FeetechBus(EmulatedBus):
    """Feetech STS servos."""

    address_bytes = 1

    def make_parser(self) -> FeetechParser:
        """STS parser."""
        return FeetechParser()

    def status(self, servo: EmulatedServo, error: int = 0, params: bytes = b"") -> bytes:
        """Status packet; the error byte carries the hardware error bits."""
        return sts_status(servo.servo_id, error | servo.hardware_error, params)


def make_emulated_bus(protocol: str, servos: list[EmulatedServo]) -> EmulatedBus:
    """The emulated bus of ``protocol`` (``dynamixel`` or ``feetech``)."""
    return {"dynamixel": DynamixelBus, "feetech": FeetechBus}[protocol](servos)
