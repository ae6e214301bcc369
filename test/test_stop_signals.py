"""A node that blocks after Ctrl-C still stops within seconds, and says where it waited.

A real node process (the package's ``run_node``, real rclpy) whose timer callback waits forever on
a lock (test/ros_nodes/blocking_node.py: a made-up wait, standing in for the one that kept sim_node
alive 30 s after SIGINT in one launch-test run, never reproduced). Before the stop deadline, it
outlived SIGINT and SIGTERM alike (both ignored after the first signal) until SIGKILL.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("rclpy")

from ros_helpers import DEFAULT_TIMEOUT

from ik_solvers.node.stop_signals import STOP_DEADLINE

BLOCKING_NODE = Path(__file__).resolve().parent / "ros_nodes" / "blocking_node.py"
MARGIN = 5.0  # [s] for the interpreter to print the stacks and exit on a loaded machine


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_node_blocked_in_a_callback_stops_after_the_deadline_with_its_stacks(ros_module, stop):
    processes = ros_module.processes
    process = processes.start_python(BLOCKING_NODE)
    deadline = time.monotonic() + DEFAULT_TIMEOUT * 3
    while "blocked" not in processes.output(process) and process.poll() is None:
        assert time.monotonic() < deadline, processes.output(process)
        time.sleep(0.05)
    process.send_signal(stop)
    try:
        code = process.wait(timeout=STOP_DEADLINE + MARGIN)
    except subprocess.TimeoutExpired:
        code = None
    output = processes.output(process)
    assert code == 1, (
        f"exit code {code} (None: still running {STOP_DEADLINE + MARGIN} s after {stop.name})\n{output}"
    )
    assert "Timeout (" in output and "in wait_forever" in output, output


EXIT_PROBE_NODE = BLOCKING_NODE.parent / "exit_probe_node.py"


def test_a_stopped_node_ends_with_its_atexit_functions_and_output(ros_module):
    """After SIGINT, run_node ends the process without the interpreter's finalization (module
    teardown: most of a stop under load, docs/node.md); what that end must keep: exit code 0, the
    atexit functions run, what they print flushed (lost if the end skipped either)."""
    processes = ros_module.processes
    process = processes.start_python(EXIT_PROBE_NODE, env={"PYTHONUNBUFFERED": ""})  # stdout buffered
    deadline = time.monotonic() + DEFAULT_TIMEOUT * 3
    while "spinning" not in processes.output(process) and process.poll() is None:
        assert time.monotonic() < deadline, processes.output(process)
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    code = process.wait(timeout=STOP_DEADLINE + MARGIN)
    output = processes.output(process)
    assert code == 0, output
    assert "atexit ran" in output, output
