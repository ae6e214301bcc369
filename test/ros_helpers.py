"""Helpers for tests that run real ROS 2 nodes: waiting on conditions, managing subprocesses.

Never sleep a fixed time: spin until the condition holds, with a deadline.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from ik_solvers.demo.processes import console_script

# processes run_until_exit starts together: twelve at once on a 2-core CI machine once left one
# silent and running after 120 s (start-up contention; its cause was not found)
AT_ONCE = 4
RESEND_AFTER = 3.0  # [s] a service answer not here by then is taken as lost: see call_service
DEFAULT_TIMEOUT = 30.0  # [s] a failure bound only: discovery usually takes ~0.1–0.3 s, but a loaded 2-core CI machine has taken over 10 s


def spin_until(executor, condition: Callable[[], bool], timeout: float = DEFAULT_TIMEOUT) -> bool:
    """Spin ``executor`` until ``condition()`` is true or ``timeout`` [s] passes; return the condition."""
    deadline = time.monotonic() + timeout
    while not condition():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return condition()
        executor.spin_once(timeout_sec=min(0.05, remaining))
    return True


def call_service(
    executor, client, request, timeout: float = DEFAULT_TIMEOUT, resend_after: float = RESEND_AFTER
):
    """Call ``client``'s service with ``request`` and spin until it answers; the response, or None
    after ``timeout`` [s]. The request is sent again every ``resend_after`` [s]: an answer can be lost
    although ``service_is_ready()`` was true, when the server's response writer has not yet matched
    this client's response reader (a DDS service-discovery race, ros2/rmw_fastrtps#418; it shows on a
    loaded machine). Use only for requests that may be repeated (reads, idempotent sets)."""
    deadline = time.monotonic() + timeout
    while True:
        future = client.call_async(request)
        wait = min(resend_after, deadline - time.monotonic())
        if spin_until(executor, future.done, max(wait, 0.0)):
            return future.result()
        client.remove_pending_request(future)
        if time.monotonic() >= deadline:
            return None


def wait_for_matching(executor, endpoint, count: int = 1, timeout: float = DEFAULT_TIMEOUT) -> bool:
    """Spin until a publisher has ``count`` matched subscriptions (or a subscription ``count`` publishers)."""
    if hasattr(endpoint, "get_subscription_count"):
        matched = endpoint.get_subscription_count
    else:
        matched = endpoint.get_publisher_count
    return spin_until(executor, lambda: matched() >= count, timeout)


class ProcessRunner:
    """Starts processes with the test's environment and stops them cleanly.

    Output of each process goes to a file in ``log_dir`` (no pipe to fill up);
    :meth:`output` reads it.
    """

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self._started: list[tuple[subprocess.Popen, Path]] = []

    def start(self, argv: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
        """Start ``argv`` with ``os.environ`` (plus ``env``), output to a log file."""
        log_path = self.log_dir / f"process-{len(self._started)}-{Path(argv[0]).name}.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                argv,
                env={**os.environ, **(env or {})},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._started.append((process, log_path))
        return process

    def start_console_script(
        self, name: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen:
        """Start console script ``name`` (e.g. ``ik_node``) with ``args``."""
        return self.start([console_script(name), *args], env)

    def start_python(self, script: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        """Start a Python file with this interpreter."""
        return self.start([sys.executable, str(script), *args], env)

    def output(self, process: subprocess.Popen) -> str:
        """Everything ``process`` printed so far (stdout and stderr)."""
        for started, log_path in self._started:
            if started is process:
                return log_path.read_text(errors="replace")
        raise ValueError("process was not started by this runner")

    @staticmethod
    def stop(process: subprocess.Popen, timeout: float = 5.0) -> int:
        """SIGINT, wait up to ``timeout`` [s], then SIGKILL; return the exit code."""
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=timeout)
        return process.returncode

    def stop_all(self) -> None:
        """Stop every process started by this runner, most recent first."""
        for process, _ in reversed(self._started):
            self.stop(process)


def run_until_exit(
    processes: ProcessRunner, script: str, cases: dict[str, list[str]], timeout: float = DEFAULT_TIMEOUT
) -> dict[str, tuple[int | None, str]]:
    """Start console script ``script`` once per case (its arguments), :data:`AT_ONCE` cases at a
    time; per case the exit code (None: still running after ``timeout`` [s], then stopped) and
    everything it printed."""
    finished = {}
    names = list(cases)
    for first in range(0, len(names), AT_ONCE):
        group = names[first : first + AT_ONCE]
        started = {case: processes.start_console_script(script, *cases[case]) for case in group}
        for case, process in started.items():
            try:
                code = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                code = None
                processes.stop(process)
            finished[case] = (code, processes.output(process))
    return finished
