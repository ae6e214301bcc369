"""Device-side packet framing of both buses, written from the protocol documents.

Dynamixel Protocol 2.0 (ROBOTIS e-Manual, "DYNAMIXEL Protocol 2.0"): ``FF FF FD 00 | ID | LEN_L
LEN_H | INST | PARAMS | CRC_L CRC_H``; LEN counts INST, PARAMS and CRC; CRC-16 with polynomial
0x8005, initial value 0, no reflection, over everything before it; inside INST..PARAMS every
``FF FF FD`` is followed by a stuffed ``FD``. Status packets carry INST 0x55 and an ERROR byte.

Feetech STS (SCS/STS communication protocol manual, the Dynamixel 1.0 layout): ``FF FF | ID | LEN
| INST or ERROR | PARAMS | CHECKSUM``; LEN counts INST, PARAMS and CHECKSUM; CHECKSUM is the
inverted low byte of the sum of ID, LEN, INST and PARAMS.

The parsers are streaming: bytes go in as they arrive, whole instruction packets come out; a
packet whose CRC/checksum fails is counted and dropped, as a servo ignores it.
"""

from __future__ import annotations

from dataclasses import dataclass

DXL_HEADER = b"\xff\xff\xfd\x00"
DXL_STATUS = 0x55
DXL_MAX_LENGTH = 1024  # longer length fields are taken for noise (the SDK's packet buffer size)
_CRC_POLYNOMIAL = 0x8005


@dataclass(frozen=True)
class Packet:
    """One instruction packet as a servo sees it (parameters unstuffed)."""

    servo_id: int
    instruction: int
    params: bytes
    size: int  # bytes it took on the wire


def _crc_of_byte(byte: int) -> int:
    """CRC-16 register after shifting one byte through it bit by bit (MSB first)."""
    crc = byte << 8
    for _ in range(8):
        crc = ((crc << 1) ^ _CRC_POLYNOMIAL) if crc & 0x8000 else (crc << 1)
    return crc & 0xFFFF


_CRC_TABLE = tuple(_crc_of_byte(byte) for byte in range(256))  # generated from the polynomial


def crc16(data: bytes, crc: int = 0) -> int:
    """Dynamixel Protocol 2.0 CRC-16 (polynomial 0x8005, MSB first, init 0) of ``data``,
    continuing from ``crc`` (the CRC of the bytes before ``data``)."""
    for byte in data:
        crc = ((crc << 8) ^ _CRC_TABLE[(crc >> 8) ^ byte]) & 0xFFFF
    return crc


def stuff(body: bytes) -> bytes:
    """Insert an ``FD`` after every ``FF FF FD`` of INST..PARAMS (the bytes right after LEN)."""
    out = bytearray()
    for byte in body:
        out.append(byte)
        if byte == 0xFD and out[-3:-1] == b"\xff\xff":
            out.append(0xFD)
    return bytes(out)


def unstuff(body: bytes) -> bytes:
    """Remove the stuffed ``FD`` of every ``FF FF FD FD``."""
    out = bytearray()
    for byte in body:
        if byte == 0xFD and out[-3:] == b"\xff\xff\xfd":
            continue
        out.append(byte)
    return bytes(out)


def dxl_packet(servo_id: int, body: bytes, stuffed: bool = True) -> bytes:
    """A Protocol 2.0 packet from INST (or 0x55 + ERROR) and PARAMS: header, length and CRC added."""
    body = stuff(body) if stuffed else body
    head = DXL_HEADER + bytes([servo_id]) + (len(body) + 2).to_bytes(2, "little")
    packet = head + body
    return packet + crc16(packet).to_bytes(2, "little")


def dxl_status(servo_id: int, error: int, params: bytes = b"") -> bytes:
    """A Protocol 2.0 status packet."""
    return dxl_packet(servo_id, bytes([DXL_STATUS, error]) + params)


def sts_checksum(data: bytes) -> int:
    """Feetech checksum of ID, LEN, INST/ERROR and PARAMS."""
    return ~sum(data) & 0xFF


def sts_status(servo_id: int, error: int, params: bytes = b"") -> bytes:
    """A Feetech status packet."""
    body = bytes([servo_id, len(params) + 2, error]) + params
    return b"\xff\xff" + body + bytes([sts_checksum(body)])


class _StreamParser:
    """Finds packets in a byte stream: subclasses say where a header is, how long a packet is, and
    whether its checksum holds."""

    header = b""
    min_size = 0  # bytes before the length of the packet is known

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.bad_packets = 0

    def feed(self, data: bytes) -> list[Packet]:
        """Append received bytes; return the complete, valid instruction packets found."""
        self.buffer += data
        packets = []
        while True:
            start = self.buffer.find(self.header)
            if start < 0:
                del self.buffer[: max(0, len(self.buffer) - len(self.header) + 1)]
                return packets
            del self.buffer[:start]
            if len(self.buffer) < self.min_size:
                return packets
            total = self.size()
            if total is None:
                del self.buffer[:1]
                continue
            if len(self.buffer) < total:
                return packets
            raw = bytes(self.buffer[:total])
            if not self.valid(raw):
                self.bad_packets += 1
                del self.buffer[:1]
                continue
            del self.buffer[:total]
            packets.append(self.packet(raw))

    def size(self) -> int | None:
        """Bytes of the packet at the start of the buffer (None: not a packet start after all)."""
        raise NotImplementedError

    def valid(self, raw: bytes) -> bool:
        """The packet's length field and checksum hold."""
        raise NotImplementedError

    def packet(self, raw: bytes) -> Packet:
        """The instruction packet in ``raw``."""
        raise NotImplementedError


class DynamixelParser(_StreamParser):
    """Streaming parser of Protocol 2.0 instruction packets."""

    header = DXL_HEADER
    min_size = 7

    def size(self) -> int | None:
        """Header (4), id, length (2) and the length's bytes; None for a length no packet has."""
        length = int.from_bytes(self.buffer[5:7], "little")
        return 7 + length if length <= DXL_MAX_LENGTH else None

    def valid(self, raw: bytes) -> bool:
        """Length covers at least instruction and CRC; CRC-16 matches."""
        return len(raw) >= 10 and crc16(raw[:-2]) == int.from_bytes(raw[-2:], "little")

    def packet(self, raw: bytes) -> Packet:
        """Unstuffed instruction and parameters."""
        body = unstuff(raw[7:-2])
        return Packet(raw[4], body[0], body[1:], len(raw))


class FeetechParser(_StreamParser):
    """Streaming parser of Feetech STS instruction packets."""

    header = b"\xff\xff"
    min_size = 4

    def size(self) -> int | None:
        """Header (2), id, length and the length's bytes; a third FF means the header starts later."""
        return None if self.buffer[2] == 0xFF else 4 + self.buffer[3]

    def valid(self, raw: bytes) -> bool:
        """Length covers at least instruction and checksum; the checksum matches."""
        return raw[3] >= 2 and sts_checksum(raw[2:-1]) == raw[-1]

    def packet(self, raw: bytes) -> Packet:
        """Instruction and parameters."""
        return Packet(raw[2], raw[4], raw[5:-1], len(raw))
