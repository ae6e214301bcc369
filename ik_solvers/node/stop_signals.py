"""Stopping a node on SIGINT or SIGTERM without a traceback: what every executable of the package
does around its spin.

rclpy's default handling raises KeyboardInterrupt wherever the signal lands; inside rclpy's message
conversion (a subscription's take) it surfaces as "RuntimeError: Unable to convert call argument"
instead, and the node dies with exit code 1 and a traceback (seen on walk_node in a full test run).
Here the first signal only sets a flag while the node spins, and the spin loop returns at its next
look (at most ``STOP_POLL`` later). During start-up, before spinning (kernels may be compiling), the
signal is a KeyboardInterrupt, so that start-up stops at once. Later signals are ignored, so that a
second Ctrl-C never cuts the clean shutdown short.

Whatever then blocks the stop cannot keep a node of ``run_node`` alive: the first signal arms a deadline
(``STOP_DEADLINE``, :func:`faulthandler.dump_traceback_later`, a watchdog thread that needs neither
the interpreter's lock nor the main thread). A process still there when it passes prints every
thread's stack to stderr (after ``Timeout (h:mm:ss)!``), and exits with status 1: a node that
hung after Ctrl-C (sim_node once, in one launch-test run of a loop, cause unseen: launch's
escalation to SIGTERM is ignored here, so it stayed until SIGKILL or the test's 30 s) now stops
within seconds and shows where it waited.

What start-up built (modules, numba kernels, the robot model: about a second of interpreter CPU to
walk at exit) is moved out of the garbage collector's reach when spinning starts (``gc.freeze``):
the interpreter's exit then no longer collects it object by object. On a loaded machine that walk
took ik_node 4-9 s after its last callback (0.45 s of CPU at load 16), longer than launch's 5 s
before SIGTERM; frozen, 0.5-0.9 s. The collector's passes while spinning walk less too. The rest
of the interpreter's exit (module teardown) ``run_node`` now skips: :mod:`ik_solvers.node.executable`.

Use: ``install()`` before ``rclpy.init(..., signal_handler_options=SignalHandlerOptions.NO)``, then
``spin_until_stopped(node)``.
"""

from __future__ import annotations

import faulthandler
import gc
import math
import signal
import sys
from types import SimpleNamespace

import rclpy
from rclpy.node import Node

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP_POLL = 0.1  # [s] longest wait between two looks at the stop flag when nothing arrives
STOP_DEADLINE = 4.5  # [s] after the first stop signal, a process still running prints its stacks and
# exits (status 1): before launch's SIGTERM at 5 s; a clean stop took 0.2-2.5 s at load 4
_STOP = SimpleNamespace(spinning=False, requested=False, deadline=None)  # written by the signal handler


def install(deadline: float | None = None) -> None:
    """Take SIGINT and SIGTERM over from Python's and rclpy's default handlers; with ``deadline``
    [s] (e.g. ``STOP_DEADLINE``), the first signal also arms :func:`arm_stop_deadline` (not for a
    process whose stop must run to its end, e.g. servo_bridge's torque-off)."""
    _STOP.deadline = deadline
    for stop in STOP_SIGNALS:
        signal.signal(stop, _stop_on_signal)


def spin_until_stopped(node: Node) -> None:
    """Spin ``node`` until a stop signal is taken or ROS shuts down."""
    executor = rclpy.get_global_executor()
    executor.add_node(node)
    gc.freeze()  # start-up's objects live until exit: neither the passes nor the exit walk them
    _STOP.spinning = True
    try:
        while executor.context.ok() and not _STOP.requested:
            executor.spin_once(timeout_sec=STOP_POLL)
    finally:
        executor.remove_node(node)


def request_stop() -> None:
    """Stop the spin as a signal would, from any thread (e.g. a worker thread that failed); the spin
    loop sees it within ``STOP_POLL``."""
    _STOP.requested = True


def _stop_on_signal(signum: int, frame) -> None:
    """The first SIGINT or SIGTERM stops the node (a flag while spinning, KeyboardInterrupt before)."""
    for stop in STOP_SIGNALS:
        signal.signal(stop, signal.SIG_IGN)
    _STOP.requested = True
    if _STOP.deadline is not None:
        arm_stop_deadline(_STOP.deadline)
    if not _STOP.spinning:
        raise KeyboardInterrupt


def arm_stop_deadline(deadline: float = STOP_DEADLINE) -> None:
    """Unless the process has ended ``deadline`` [s] from now, print ``Timeout (h:mm:ss)!`` and every
    thread's stack to stderr and exit with status 1 (a watchdog thread: works while the main thread
    blocks, even inside C code); still alive a second later (past the interpreter's end), SIGALRM
    kills it."""
    # the process's own stderr, not sys.stderr: that may be redirected where the signal lands (a
    # StringIO has no file descriptor: faulthandler raised instead of the stop, inside the URDF
    # parse of a kernel warm-up, which took it for a damaged kernel cache and removed it)
    faulthandler.dump_traceback_later(deadline, exit=True, file=sys.__stderr__ or sys.stderr)
    signal.alarm(math.ceil(deadline) + 1)  # after the interpreter's end, faulthandler's watchdog is
    # gone: a wait in what runs then (C++ destructors at exit, e.g. the DDS participant's) ends on
    # SIGALRM's default action, the process killed (status -14)
