"""Packets on the wire: what the bridge's SDK backends send over a real pseudo-terminal, checked
byte for byte against the protocol documents' examples, and the emulator's device-side framing
(written from those documents, not from the SDKs) against both.
"""

from __future__ import annotations

import os
import select
import tty

import pytest

from ik_solvers.hardware.dynamixel_bus import DynamixelBus
from ik_solvers.hardware.emulator.framing import (
    DynamixelParser,
    FeetechParser,
    crc16,
    dxl_packet,
    sts_checksum,
    stuff,
    unstuff,
)
from ik_solvers.hardware.feetech_bus import FeetechBus

# ROBOTIS e-Manual, Protocol 2.0 examples: Ping ID 1; Sync Write of Goal Position (116, 4 bytes)
# 150 to ID 1 and 170 to ID 2; Read of Present Position (132, 4 bytes) from ID 1.
EMANUAL_PING = bytes.fromhex("fffffd00 01 0300 01 194e".replace(" ", ""))
EMANUAL_SYNC_WRITE = bytes.fromhex(
    "fffffd00 fe 1100 83 7400 0400 01 96000000 02 aa000000 8287".replace(" ", "")
)
EMANUAL_READ = bytes.fromhex("fffffd00 01 0700 02 8400 0400 1d15".replace(" ", ""))
# Feetech/Dynamixel 1.0 manual example: Ping ID 1.
FEETECH_PING = bytes.fromhex("ffff 01 02 01 fb".replace(" ", ""))


@pytest.fixture
def wire():
    """A raw pseudo-terminal: (path of the side a serial port opens, read(n) of the other side)."""
    master, slave = os.openpty()
    tty.setraw(slave)

    def read(count: int, timeout: float = 2.0) -> bytes:
        data = b""
        while len(data) < count and select.select([master], [], [], timeout)[0]:
            data += os.read(master, count - len(data))
        return data

    yield os.ttyname(slave), read
    os.close(master)
    os.close(slave)


@pytest.mark.parametrize("packet", [EMANUAL_PING, EMANUAL_SYNC_WRITE, EMANUAL_READ])
def test_the_emulator_crc_reproduces_the_emanual_examples(packet):
    assert crc16(packet[:-2]).to_bytes(2, "little") == packet[-2:]


def test_a_dynamixel_sync_write_of_known_goals_is_the_emanual_packet(wire):
    path, read = wire
    bus = DynamixelBus(path, 1_000_000)
    bus.open()
    bus.sync_write("goal_position", {1: 150, 2: 170})
    assert read(len(EMANUAL_SYNC_WRITE)) == EMANUAL_SYNC_WRITE
    bus.close()


def test_a_feetech_sync_write_of_known_goals_has_the_documented_layout_and_checksum(wire):
    path, read = wire
    bus = FeetechBus(path, 1_000_000)
    bus.open()
    bus.sync_write("goal_position", {1: 2048, 2: 1000})
    # FF FF | FE | LEN = 2 servos x 3 + 4 | 83 | addr 42 | 2 bytes | id, lo, hi ... | checksum
    body = bytes([0xFE, 10, 0x83, 42, 2, 1, 0x00, 0x08, 2, 0xE8, 0x03])
    expected = b"\xff\xff" + body + bytes([~sum(body) & 0xFF])
    assert read(len(expected)) == expected
    bus.close()


def test_the_feetech_checksum_reproduces_the_manual_example():
    assert sts_checksum(FEETECH_PING[2:-1]) == FEETECH_PING[-1]


def test_a_negative_goal_goes_out_as_twos_complement(wire):
    path, read = wire
    bus = DynamixelBus(path, 1_000_000)
    bus.open()
    bus.sync_write("goal_position", {7: -2})
    packet = read(14 + 5)
    assert packet[12:17] == bytes([7, 0xFE, 0xFF, 0xFF, 0xFF])
    bus.close()


def test_the_emulator_parses_what_the_dynamixel_sdk_sends_where_the_spec_asks_for_stuffing(wire):
    """dynamixel-sdk 4.1.0 computes the stuffed packet but txPacket drops it (addStuffing's result
    is not used), so FF FF FD in the data goes out unstuffed. A servo's unstuffing only removes an
    FD that follows FF FF FD, so these goals still arrive intact; in-range goals (0..4095) never
    contain FF FF FD at all (docs/hardware.md)."""
    path, read = wire
    bus = DynamixelBus(path, 1_000_000)
    bus.open()
    # little-endian FF FF FD 00 and 00 FF FF FD: each an FF FF FD the protocol says to stuff
    goals = {1: 0x00FDFFFF, 2: 0xFDFFFF00 - (1 << 32), 3: 2048}
    bus.sync_write("goal_position", goals)
    raw = read(14 + 15)
    (packet,) = DynamixelParser().feed(raw + read(2, timeout=0.2))
    assert packet.instruction == 0x83 and packet.size == len(raw)
    entries = packet.params[4:]
    assert {
        entries[i]: int.from_bytes(entries[i + 1 : i + 5], "little", signed=True) for i in (0, 5, 10)
    } == {
        1: 0x00FDFFFF,
        2: 0xFDFFFF00 - (1 << 32),
        3: 2048,
    }
    bus.close()


def test_the_emulator_parses_what_the_feetech_sdk_sends(wire):
    path, read = wire
    bus = FeetechBus(path, 1_000_000)
    bus.open()
    bus.sync_write("goal_position", {5: 4095, 6: 0})
    (packet,) = FeetechParser().feed(read(8 + 6))
    assert (packet.servo_id, packet.instruction, packet.params) == (
        0xFE,
        0x83,
        bytes([42, 2, 5, 255, 15, 6, 0, 0]),
    )
    bus.close()


def test_stuffing_round_trips_and_the_parser_drops_a_bad_crc():
    body = bytes([0x55, 0, 0xFF, 0xFF, 0xFD, 0x01, 0xFF, 0xFF, 0xFD])
    assert unstuff(stuff(body)) == body and stuff(body).count(0xFD) == 4
    packet = bytearray(dxl_packet(1, bytes([0x03, 0x74, 0x00, 1, 2, 3, 4])))
    parser = DynamixelParser()
    assert len(parser.feed(bytes(packet))) == 1
    packet[-3] ^= 0x01
    assert parser.feed(bytes(packet)) == [] and parser.bad_packets == 1


def test_the_feetech_parser_drops_a_bad_checksum_and_finds_the_next_packet():
    parser = FeetechParser()
    bad = bytearray(FEETECH_PING)
    bad[-1] ^= 0xFF
    packets = parser.feed(bytes(bad) + FEETECH_PING)
    assert [(p.servo_id, p.instruction) for p in packets] == [(1, 0x01)]
    assert parser.bad_packets == 1
