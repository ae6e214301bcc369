"""Start ``servo_bus_emulator`` as a process and talk to its control channel (tests, bench, demo).

The emulator runs in a process of its own so that its byte pacing never waits for the Python
interpreter of the program under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Self

STOP_TIMEOUT = 5.0  # [s]


class EmulatorProcess:
    """A running emulator with ``--control``; ``args`` are its other command-line arguments.

    Attributes:
        port: the path to open as the serial port.
        servos: how many servos it emulates.
    """

    def __init__(self, args: list[str], log_path: Path | None = None) -> None:
        stderr = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115 (closed in stop)
        self._stderr = stderr
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ik_solvers.hardware.emulator.main", "--control", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
        first = self.process.stdout.readline()
        if not first:
            self.stop()
            raise RuntimeError(f"servo_bus_emulator did not start (arguments {args}; log {log_path})")
        info = json.loads(first)
        self.port: str = info["port"]
        self.servos: int = info["servos"]

    def command(self, line: str) -> dict:
        """Send one control command (e.g. ``"missing 4"``, ``"state"``); its JSON answer."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer:
            raise ValueError(answer["error"])
        return answer

    def state(self) -> dict[int, dict]:
        """Servo id -> goal [tick], position [tick], torque, watchdog."""
        return {int(k): v for k, v in self.command("state")["servos"].items()}

    def stop(self) -> None:
        """Ask it to quit, then make sure it is gone."""
        if self.process.poll() is None:
            try:
                self.process.stdin.write("quit\n")
                self.process.stdin.flush()
                self.process.wait(timeout=STOP_TIMEOUT)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait(timeout=STOP_TIMEOUT)
        if self._stderr is not subprocess.DEVNULL:
            self._stderr.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
