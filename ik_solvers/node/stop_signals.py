"""Stopping a node on SIGINT or SIGTERM without a traceback: what every executable of the package
does around its spin.

rclpy's default handling raises KeyboardInterrupt wherever the signal lands; inside rclpy's message
conversion (a subscription's take) it surfaces as "RuntimeError: Unable to convert call argument"
instead, and the node dies with exit code 1 and a traceback (seen on walk_node in a full test run).
Here the first signal only sets a flag while the node spins, and the spin loop returns at its next
look (at most ``STOP_POLL`` later). During start-up, before spinning (kernels may be compiling), the
signal is a KeyboardInterrupt, so that start-up stops at once. Later signals are ignored, so that a
second Ctrl-C never cuts the clean shutdown short.

What start-up built (modules, numba kernels, the robot model: about a second of interpreter CPU to
walk at exit) is moved out of the garbage collector's reach when spinning starts (``gc.freeze``):
the interpreter's exit then no longer collects it object by object. On a loaded machine that walk
took ik_node 4-9 s after its last callback (0.45 s of CPU at load 16), longer than launch's 5 s
before SIGTERM; frozen, 0.5-0.9 s. The collector's passes while spinning walk less too.

Use: ``install()`` before ``rclpy.init(..., signal_handler_options=SignalHandlerOptions.NO)``, then
``spin_until_stopped(node)``.
"""

from __future__ import annotations

import gc
import signal
from types import SimpleNamespace

import rclpy
from rclpy.node import Node

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP_POLL = 0.1  # [s] longest wait between two looks at the stop flag when nothing arrives
_STOP = SimpleNamespace(spinning=False, requested=False)  # written by the signal handler


def install() -> None:
    """Take SIGINT and SIGTERM over from Python's and rclpy's default handlers."""
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
    if not _STOP.spinning:
        raise KeyboardInterrupt
