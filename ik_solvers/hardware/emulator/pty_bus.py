"""An emulated bus on a pseudo-terminal: bytes paced at the baud rate, and injected faults.

A serial byte takes 10 bits (start, 8 data, stop) on the wire. The bus is half duplex: an
instruction occupies it for its length, then each answering servo waits its return delay and
sends its status packet. The answers to one instruction are written to the pty together, when the
last byte of the last one would have arrived (a Feetech Sync Read's 26 answers: one sleep, not 26,
each of which can cost a wait for the processor on a loaded machine). So a program that talks to
the pty sees a transaction end when it would on a real bus at that baud rate (within the
scheduler's ~0.1 ms); the first of several answers comes up to the others' length late.

Faults, set through :meth:`PtyBus.command` (the emulator's ``--control`` lines on stdin):
``drop N`` (the next N status packets are not sent), ``corrupt N`` (the next N have a byte
flipped, so their CRC/checksum fails), ``missing ID`` (a servo stops answering), ``stall ID`` (a
jammed joint: it answers and takes goals but does not move), ``restore ID`` (undoes both),
``error ID BITS`` (hardware error bits; 0 clears), ``vanish SECONDS`` (the pty closes
and a new one appears after that time behind the same link path), ``freeze SECONDS`` (the servos
read nothing and answer nothing for that time, then answer what waited, late: the emulator's
process not scheduled on a loaded machine). ``state`` and ``stats`` report.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import time
import tty
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ik_solvers.hardware.emulator.devices import EmulatedBus, Reply

BITS_PER_BYTE = 10
COMMANDS = (
    "drop N",
    "corrupt N",
    "missing ID",
    "stall ID",
    "restore ID",
    "error ID BITS",
    "vanish S",
    "freeze S",
    "state",
    "stats",
    "quit",
)


@dataclass
class BusStats:
    """Counters of the emulated bus since start."""

    instructions: int = 0
    bad_packets: int = 0
    replies: int = 0
    dropped: int = 0
    corrupted: int = 0
    bytes_in: int = 0
    bytes_out: int = 0


class PtyBus:
    """``bus`` served on a pseudo-terminal at ``baud_rate`` [bit/s]; ``link`` names it stably;
    ``answered``, when given, is called after each instruction's answers are on the wire."""

    def __init__(
        self,
        bus: EmulatedBus,
        baud_rate: int,
        link: Path | None = None,
        answered: Callable[[], None] | None = None,
    ) -> None:
        self.bus = bus
        self.answered = answered
        self.byte_time = BITS_PER_BYTE / baud_rate
        self.link = link
        self.stats = BusStats()
        self.drop_next = 0
        self.corrupt_next = 0
        self.reappear_at: float | None = None
        self.frozen_until = 0.0  # [s] monotonic
        self.bus_free_at = 0.0
        self.master = self.slave = None
        self.device = ""

    # -- the pseudo-terminal --------------------------------------------------------------------
    def open(self) -> str:
        """Create the pty (raw mode), point ``link`` at it; return the path a serial port opens."""
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        flags = fcntl.fcntl(self.master, fcntl.F_GETFL)
        fcntl.fcntl(self.master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        self.device = os.ttyname(self.slave)
        if self.link is not None:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()
            self.link.symlink_to(self.device)
        return str(self.link or self.device)

    def close(self) -> None:
        """Close the pty: a program that has it open sees the port vanish."""
        for fd in (self.master, self.slave):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.master = self.slave = None
        if self.link is not None:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()

    # -- serving ------------------------------------------------------------------------------
    def serve(self, control: int | None = None, stop_after: float | None = None) -> None:
        """Answer the bus, and command lines read from file descriptor ``control`` (answers on
        stdout), until ``quit``, the end of ``control`` or ``stop_after`` [s]."""
        end = None if stop_after is None else time.monotonic() + stop_after
        pending = b""
        while end is None or time.monotonic() < end:
            time.sleep(max(0.0, self.frozen_until - time.monotonic()))
            self._reappear_when_due()
            fds = [fd for fd in (self.master, control) if fd is not None]
            ready, _, _ = select.select(fds, [], [], 0.05)
            if control is not None and control in ready:
                chunk = os.read(control, 4096)
                if not chunk:
                    return
                *lines, pending = (pending + chunk).split(b"\n")
                if any(self._answer(line.decode()) == "quit" for line in lines):
                    return
            if self.master is not None and self.master in ready:
                self._serve_bytes()

    def _serve_bytes(self) -> None:
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:  # nobody holds the other side any more
            time.sleep(0.01)
            return
        now = time.monotonic()
        self.stats.bytes_in += len(data)
        bad_before = self.bus.parser.bad_packets
        for packet, replies in self.bus.receive(data, now):
            self.stats.instructions += 1
            start = max(now, self.bus_free_at)
            self.bus_free_at = start + packet.size * self.byte_time
            self._send([self._on_wire(reply) for reply in replies])
            if replies and self.answered is not None:
                self.answered()
        self.stats.bad_packets += self.bus.parser.bad_packets - bad_before

    def _on_wire(self, reply: Reply) -> bytes:
        """The bytes of one status packet as they reach the bus master (b"" when dropped, a byte
        flipped when corrupted); the bus is busy until its last byte."""
        self.bus_free_at += reply.delay + len(reply.data) * self.byte_time
        if self.drop_next > 0:
            self.drop_next -= 1
            self.stats.dropped += 1
            return b""
        data = reply.data
        if self.corrupt_next > 0:
            self.corrupt_next -= 1
            self.stats.corrupted += 1
            middle = len(data) // 2
            data = data[:middle] + bytes([data[middle] ^ 0x5A]) + data[middle + 1 :]
        return data

    def _send(self, packets: list[bytes]) -> None:
        """Write the answers to one instruction together, when the last byte of the last one
        would arrive: one sleep per instruction, not per servo (on a loaded machine every sleep
        can cost a wait for the processor)."""
        data = b"".join(packets)
        if not data:
            return
        wait = self.bus_free_at - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        with contextlib.suppress(OSError):
            os.write(self.master, data)
            self.stats.replies += sum(1 for packet in packets if packet)
            self.stats.bytes_out += len(data)

    def _reappear_when_due(self) -> None:
        if self.reappear_at is not None and time.monotonic() >= self.reappear_at:
            self.reappear_at = None
            self.open()

    # -- control ------------------------------------------------------------------------------
    def _answer(self, line: str) -> str:
        words = line.split()
        try:
            answer = self.command(words)
        except (ValueError, KeyError, IndexError) as error:
            answer = {"error": f"{line.strip()!r}: {error}"}
        print(json.dumps(answer), flush=True)
        return words[0] if words else ""

    def command(self, words: list[str]) -> dict:
        """Run one control command (see the module docstring); its JSON-able answer."""
        name, args = words[0], [float(w) for w in words[1:]]
        if name == "drop":
            self.drop_next += int(args[0])
        elif name == "corrupt":
            self.corrupt_next += int(args[0])
        elif name == "missing":
            self.bus.missing.add(int(args[0]))
        elif name == "stall":
            self.bus.servos[int(args[0])].stalled = True
        elif name == "restore":
            self.bus.missing.discard(int(args[0]))
            self.bus.servos[int(args[0])].stalled = False
        elif name == "error":
            self.bus.servos[int(args[0])].hardware_error = int(args[1])
        elif name == "freeze":
            self.frozen_until = time.monotonic() + args[0]
        elif name == "vanish":
            self.close()
            self.reappear_at = time.monotonic() + args[0]
        elif name == "state":
            return {"servos": self.servo_states()}
        elif name == "stats":
            return asdict(self.stats)
        elif name != "quit":
            raise ValueError(f"unknown command; accepted: {', '.join(COMMANDS)}")
        return {"ok": name}

    def servo_states(self) -> dict[str, dict]:
        """Per servo id: goal and present position [tick], torque, bus watchdog register."""
        now = time.monotonic()
        states = {}
        for servo_id, servo in self.bus.servos.items():
            servo.advance(now)
            servo.refresh()
            states[str(servo_id)] = {
                "goal": servo.goal(),
                "position": servo.position,
                "torque": servo.get("torque_enable"),
                "watchdog": servo.get("bus_watchdog") if servo.model.has_bus_watchdog else None,
            }
        return states
