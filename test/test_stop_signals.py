"""A node that blocks after Ctrl-C still stops within seconds, and says where it waited.

A real node process (the package's ``run_node``, real rclpy) whose timer callback waits forever on
a lock (test/ros_nodes/blocking_node.py: a made-up wait, standing in for the one that kept sim_node
alive 30 s after SIGINT in one launch-test run, never reproduced). Before the stop deadline, it
outlived SIGINT and SIGTERM alike (both ignored after the first signal) until SIGKILL.

And a node stopped before its own signal handling starts, while its console script imports it
(ik_solvers/console_scripts.py), ends quietly too.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("rclpy")

from ros_helpers import DEFAULT_TIMEOUT

from ik_solvers.node.stop_signals import STOP_DEADLINE

REPO_ROOT = Path(__file__).resolve().parent.parent
BLOCKING_NODE = REPO_ROOT / "test" / "ros_nodes" / "blocking_node.py"
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


def console_scripts() -> dict[str, tuple[str, str]]:
    """setup.py's console scripts: name → (module, attribute) of its entry point."""
    entries = re.findall(r'"(\w+) = ([\w.]+):(\w+)"', (REPO_ROOT / "setup.py").read_text())
    return {name: (module, attribute) for name, module, attribute in entries}


def test_every_console_script_takes_the_stop_signals_before_its_imports():
    scripts = console_scripts()
    assert {"ik_node", "walk_node", "sim_node", "servo_bridge"} <= set(scripts), scripts
    assert {module for module, _ in scripts.values()} == {"ik_solvers.console_scripts"}, scripts


def first_heavy_import_started(pid: int) -> bool:
    """True once the process has mapped numpy's compiled core: its program's imports (numpy, numba,
    rclpy, scipy, MuJoCo: 1-4 s) are under way, and its node has not started."""
    try:
        return "_multiarray_umath" in Path(f"/proc/{pid}/maps").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.parametrize(
    ("script", "stop"),
    [
        ("ik_node", signal.SIGINT),
        ("ik_node", signal.SIGTERM),
        ("walk_node", signal.SIGINT),
        ("sim_node", signal.SIGTERM),
        ("servo_bridge", signal.SIGINT),
    ],
)
def test_a_stop_during_the_imports_ends_the_node_quietly(ros_module, tmp_path, script, stop):
    """The console script as pip and colcon install it, from setup.py's entry point, stopped while
    it imports (before the node's own signal handling): exit code 0 and no traceback, as a ROS 2
    node stopped at any time. Before: KeyboardInterrupt's traceback and exit code -2 (SIGTERM: -15)."""
    module, attribute = console_scripts()[script]
    installed = tmp_path / script
    installed.write_text(f"import sys\nfrom {module} import {attribute}\nsys.exit({attribute}())\n")
    processes = ros_module.processes
    process = processes.start_python(installed)
    deadline = time.monotonic() + DEFAULT_TIMEOUT
    while not first_heavy_import_started(process.pid) and process.poll() is None:
        assert time.monotonic() < deadline, processes.output(process)
        time.sleep(0.002)
    process.send_signal(stop)
    code = process.wait(timeout=DEFAULT_TIMEOUT)
    output = processes.output(process)
    assert code == 0, f"{script}: exit code {code} after {stop.name} during its imports\n{output}"
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output


REDIRECTED_STOP = """
import io, os, signal
from contextlib import redirect_stderr
from ik_solvers.node import stop_signals
stop_signals.install(stop_signals.STOP_DEADLINE)
try:
    with redirect_stderr(io.StringIO()):  # as the URDF parse of a kernel warm-up does
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(1000000):
            pass  # Python's handler runs between two bytecodes, here
except BaseException as error:
    print("stopped by", type(error).__name__, error)
"""


def test_a_stop_while_stderr_is_redirected_is_still_a_keyboard_interrupt():
    """A node stopped during start-up while something redirected sys.stderr (the URDF parser's
    warnings kept quiet) stops with KeyboardInterrupt. It raised io.UnsupportedOperation("fileno")
    (the stop deadline armed on the redirected stream), which the parse turned into "URDF does not
    parse: fileno" and the kernel cache into "does not load": a valid cache removed, a partial one
    left by the process's SIGKILL (three walk_node tests failed in one full run)."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", REDIRECTED_STOP],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "stopped by KeyboardInterrupt" in result.stdout, result.stdout + result.stderr
