"""Child processes of the demo: the ik_node and sim_node console scripts, on loopback, stopped cleanly.

No ROS here. Every child gets ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` (DDS discovery stays
on this machine) and a ``ROS_LOG_DIR``; its output goes to a log file in the demo's output folder.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

STOP_TIMEOUT = 5.0  # [s] wait after SIGINT before SIGKILL


def loopback_environment(log_dir: Path) -> dict[str, str]:
    """This process's environment, with DDS discovery on localhost and ROS logs in ``log_dir``."""
    environment = dict(os.environ)
    environment["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    environment.pop("ROS_STATIC_PEERS", None)
    environment.setdefault("ROS_LOG_DIR", str(log_dir))
    return environment


def console_script(name: str) -> str:
    """Path of the console script ``name``: next to this Python interpreter, else on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise FileNotFoundError(
            f"console script '{name}' is neither in {beside.parent} nor on PATH; install the package "
            "(make setup, or pip install -e .)"
        )
    return found


class Children:
    """Starts console scripts with the loopback environment; :meth:`stop_all` stops them, newest first."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.environment = loopback_environment(log_dir)
        self.started: list[tuple[subprocess.Popen, Path]] = []

    def start(self, name: str, *args: str) -> subprocess.Popen:
        """Start console script ``name`` with ``args``; output to ``<log_dir>/<name>.log``."""
        log_path = self.log_dir / f"{name}.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [console_script(name), *args],
                env=self.environment,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.started.append((process, log_path))
        return process

    def check_running(self) -> None:
        """Raise RuntimeError naming a child that has exited, with the end of its log."""
        for process, log_path in self.started:
            if process.poll() is not None:
                tail = log_path.read_text(errors="replace")[-2000:]
                raise RuntimeError(f"{log_path.stem} exited with code {process.returncode}:\n{tail}")

    def stop_all(self) -> None:
        """Stop the children newest first, each before the next is signalled: a child may use one
        started before it (servo_bridge the emulator's pty, whose loss it would count as an error).
        SIGINT, up to STOP_TIMEOUT, then SIGKILL."""
        for process, _ in reversed(self.started):
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=STOP_TIMEOUT)
